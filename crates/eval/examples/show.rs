//! Prints the default `full` weights as tables (`tune emit` writes them as source code).
fn main() {
    let model = eval::Model::new(eval::ModelKind::Full);
    let w = model.default_weights();
    println!("{}", eval::tables(&model, &w));
}
