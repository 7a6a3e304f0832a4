//! Printers (interim).
pub mod get;
pub mod output;
pub mod table;
