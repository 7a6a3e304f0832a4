//! Mounts the kubeglass app.

fn main() {
    console_error_panic_hook::set_once();
}
