//! kubectl as kubeglass runs it: everything that turns API objects into the bytes real kubectl v1.34 prints.

pub mod printers;
