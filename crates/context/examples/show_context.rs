//! Prints the code-context section `show` would paste, for trying the heuristics on real code.
//!
//! `cargo run -p self-repair-context --example show_context -- ROOT PATH LINE [SYMBOL]`

use std::error::Error;
use std::path::Path;

use self_repair_context::{ContextOptions, code_context};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, path, line, rest @ ..] = args.as_slice() else {
        return Err("usage: show_context ROOT PATH LINE [SYMBOL]".into());
    };
    let line: u32 = line.parse()?;
    let symbol = rest.first().map(String::as_str);
    let context = code_context(
        Path::new(root),
        path,
        line,
        symbol,
        &ContextOptions::default(),
    );
    print!("{}", context.render_markdown());
    Ok(())
}
