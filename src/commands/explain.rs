//! `kcontract explain CODE`: the catalogue entry of a diagnostic code (docs/errors.md).

use crate::terminal::{Ctx, Outcome, print};

/// Print the catalogue entry for a diagnostic code (e.g. `kcontract explain K0104`).
#[derive(clap::Args, Debug)]
pub(crate) struct Explain {
    /// The code, as printed in `error[K0104]`.
    code: String,
}

impl Explain {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        match crate::explain::explain(&self.code) {
            Some(entry) => print(&format!("{entry}\n")),
            None => {
                let codes: Vec<&str> = crate::explain::entries().iter().map(|(c, _)| *c).collect();
                let near = kcontract_spec::suggest::closest(
                    self.code.trim().to_ascii_uppercase().as_str(),
                    codes.iter().copied(),
                    |_| 1,
                );
                let help = match near {
                    Some(c) => format!("did you mean `{c}`? The codes are {}", codes.join(", ")),
                    None => format!("the codes are {}", codes.join(", ")),
                };
                Err(ctx.usage(&format!("no diagnostic `{}`", self.code), &help))
            }
        }
    }
}
