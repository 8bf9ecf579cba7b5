//! Prints the default `full` weights as tables and as Rust source.
fn main() {
    let model = eval::Model::new(eval::ModelKind::Full);
    let w = model.default_weights();
    println!("{}", eval::tables(&model, &w));
    println!("{}", eval::rust_source(&model, &w));
}
