//! The `kubeglass` command line.

fn main() {
    println!("kubeglass {}", env!("CARGO_PKG_VERSION"));
}
