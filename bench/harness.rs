//! Benchmark harness: `cargo run --release --example bench -- [--copies 1,10,100] [--runs 5]`
//! (`--kcontract BIN` measures another binary than `target/release/kcontract`, e.g. one that
//! `bench/ab.sh` built from an older commit).
//!
//! 1. Generates a scaled spec: the shipped contract ×N (chapters and clause ids made unique, both
//!    languages), plus the same English Markdown as an mdBook book and both languages as a minimal
//!    Hugo site.
//! 2. Builds each with `kcontract build` (release binary), `mdbook build` and `hugo` when they are on
//!    PATH, alternating the tools run by run so drift on a noisy machine hits all of them alike, each
//!    round in another order (what ran just before a process changes its time on these VMs).
//!    kcontract runs two ways: rebuilding over its previous output (it reuses unchanged files) and
//!    into a fresh folder. Hugo builds both languages, every page with a sidebar of its language's
//!    chapters (a `partialCached` partial), and runs twice too, over its previous output and into a
//!    fresh folder. All five alternate:
//!    a ratio is only meaningful between runs made at the same time here.
//!    Each timed run starts after a `sync` (untimed), so no run pays for writing back another's output.
//! 3. Times `check`, `list`, `matrix` and `scaffold --check` (those the binary has) at each N.
//! 4. The real build: `kcontract build` in this repository (the shipped spec, its Rust tests scanned
//!    for `/// Clause:` as `cargo run --release -- build` does, into a temporary folder) alternating
//!    with `mdbook build` of the same English text (the ×1 book). The scaled specs have no tests to
//!    scan, so only this figure shows what the scan costs. `--copies none` runs only this.
//!
//! Prints medians, min/max, peak RSS and the ratios ours/mdBook and ours/Hugo. Whole-process wall
//! time of the command itself, like a user sees it; the peak RSS (`/usr/bin/time -f %M`) comes from an
//! untimed second run of each (see [`timed`]). Nothing here asserts a number: figures
//! go in BENCHMARKS.md with the command and the machine.

#![allow(clippy::disallowed_methods)] // the benchmark reads the files it generated and the tools' outputs (clippy.toml)

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Args {
    copies: Vec<usize>,
    runs: usize,
    out: PathBuf,
    /// The binary measured (another commit's, for a before/after with the other tools' figures).
    kcontract: Option<PathBuf>,
}

fn parse_args() -> Args {
    let mut a = Args {
        copies: vec![1, 10, 100],
        runs: 5,
        out: PathBuf::from("target/bench"),
        kcontract: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let val = it.next().unwrap_or_default();
        match arg.as_str() {
            "--copies" => {
                a.copies = val
                    .split(',')
                    .filter_map(|s| s.trim().parse().ok())
                    .collect()
            }
            "--runs" => a.runs = val.parse().unwrap_or(5).max(1),
            "--out" => a.out = PathBuf::from(val),
            "--kcontract" => a.kcontract = Some(PathBuf::from(val)),
            _ => {
                eprintln!(
                    "usage: bench [--copies 1,10,100|none] [--runs 5] [--out target/bench] [--kcontract BIN]"
                );
                std::process::exit(2);
            }
        }
    }
    a
}

fn main() {
    let args = parse_args();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let kcontract = match &args.kcontract {
        Some(bin) => std::path::absolute(bin).unwrap_or_else(|_| bin.clone()),
        None => root.join("target/release/kcontract"),
    };
    if !kcontract.exists() {
        eprintln!("build the release binary first: cargo build --release");
        std::process::exit(2);
    }
    // `hugo` spells it `hugo version`; the others `--version`.
    let version_arg = |tool: &str| {
        if tool == "hugo" {
            "version"
        } else {
            "--version"
        }
    };
    let has = |tool: &str| {
        Command::new(tool)
            .arg(version_arg(tool))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let (mdbook, hugo) = (has("mdbook"), has("hugo"));
    let sub = |name: &str| {
        Command::new(&kcontract)
            .args(["help", name])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    println!("machine: {} cores; {}", cores(), uname());
    println!(
        "tools: kcontract {}, mdbook {}, hugo {}",
        version(&kcontract),
        if mdbook {
            version(Path::new("mdbook"))
        } else {
            "absent".into()
        },
        if hugo {
            version(Path::new("hugo"))
        } else {
            "absent".into()
        },
    );
    println!(
        "runs per figure: {} (median, [min–max], peak RSS); the tools compared run in turn, each run in another order\n",
        args.runs
    );

    let mut report = String::new();
    let mut builds: Vec<(usize, f64, f64)> = Vec::new();
    for &n in &args.copies {
        let dir = args.out.join(format!("x{n}"));
        let _ = fs::remove_dir_all(&dir);
        let stats = generate(&root.join("spec"), &dir, n).expect("generate the scaled inputs");
        restamp(&kcontract, &dir);
        let _ = writeln!(
            report,
            "## ×{n}: {} chapters × 2 languages, {} clauses, {} KiB of Markdown (en)",
            stats.chapters,
            stats.clauses,
            stats.en_bytes / 1024
        );

        // (name, command, a folder removed before each run, untimed). kcontract is timed twice:
        // rebuilding over its previous output (what `kcontract build` usually does, and where it
        // reuses unchanged files), and into a folder that does not exist yet.
        let mut tools: Vec<(&str, Command, Option<PathBuf>)> = Vec::new();
        let mut ours = Command::new(&kcontract);
        ours.current_dir(&dir)
            .args(["build", "--out", "out-kcontract"]);
        tools.push(("kcontract build (en+zh)", ours, None));
        let mut fresh = Command::new(&kcontract);
        fresh
            .current_dir(&dir)
            .args(["build", "--out", "out-kcontract-fresh"]);
        tools.push((
            "kcontract build, fresh output",
            fresh,
            Some(dir.join("out-kcontract-fresh")),
        ));
        if mdbook {
            let mut c = Command::new("mdbook");
            c.current_dir(dir.join("mdbook"))
                .args(["build", "-d", "../out-mdbook"]);
            tools.push(("mdbook build (en)", c, None));
        }
        if hugo {
            // Hugo twice, as kcontract: over its previous output (Hugo does not clear the folder,
            // so this is its usual rebuild) and into a folder that does not exist yet. On these
            // VMs the first is ~25 % slower than the second (docs/benchmarks-history.md, "Session 15"), so a
            // ratio to Hugo depends on which one it divides by.
            let mut c = Command::new("hugo");
            c.current_dir(dir.join("hugo"))
                .args(["--quiet", "-d", "../out-hugo"]);
            tools.push(("hugo (en), over its output", c, None));
            let mut c = Command::new("hugo");
            c.current_dir(dir.join("hugo"))
                .args(["--quiet", "-d", "../out-hugo-fresh"]);
            tools.push((
                "hugo (en), fresh output",
                c,
                Some(dir.join("out-hugo-fresh")),
            ));
        }
        let mut samples: Vec<Vec<(f64, u64)>> = vec![Vec::new(); tools.len()];
        // One round of alternation over every tool: this VM's speed drifts over minutes, and a
        // ratio of medians taken at different times would measure the drift as well. (Every run
        // starts after an untimed `sync`, so the ~100 MB a fresh-output run writes does not spill
        // into the next run.) Run r uses one of the orderings, evenly spaced over all of them
        // (with six tools, 720 in lexicographic order, so the first tool changes every 120), and
        // no tool always follows the same one: on these VMs how fast a process gets its memory
        // depends on what ran just before it (docs/benchmarks-history.md, "Order effects").
        let all: Vec<usize> = (0..tools.len()).collect();
        let orders = permutations(&all);
        for run in 0..args.runs {
            for &i in &orders[run * orders.len() / args.runs % orders.len()] {
                let (_, cmd, clean) = &mut tools[i];
                samples[i].push(timed(cmd, clean.as_deref()));
            }
        }
        let medians: Vec<f64> = samples.iter().map(|s| median(s)).collect();
        for ((name, _, _), s) in tools.iter().zip(&samples) {
            let _ = writeln!(report, "{}", line(name, s));
        }
        builds.push((n, medians[0], medians[1]));
        for (i, (name, _, _)) in tools.iter().enumerate().skip(3) {
            let _ = writeln!(
                report,
                "  ratio kcontract / {name}: {:.2} (rebuild), {:.2} (fresh output); \
                 median of the rounds' ratios {:.2}, {:.2}",
                medians[0] / medians[i],
                medians[1] / medians[i],
                paired(&samples[0], &samples[i]),
                paired(&samples[1], &samples[i])
            );
        }

        let mut commands: Vec<(&str, Vec<&str>)> = vec![
            ("check", vec!["check"]),
            ("list --format json", vec!["list", "--format", "json"]),
        ];
        if sub("matrix") {
            commands.push(("matrix --format json", vec!["matrix", "--format", "json"]));
        }
        if sub("scaffold") {
            // `--check` compares with what is there: write the stubs once first (not timed).
            let mut gen_stubs = Command::new(&kcontract);
            gen_stubs
                .current_dir(&dir)
                .args(["scaffold", "--out", "scaffold"]);
            timed(&mut gen_stubs, None);
            commands.push((
                "scaffold --check",
                vec!["scaffold", "--check", "--out", "scaffold"],
            ));
        }
        for (name, argv) in commands {
            let mut c = Command::new(&kcontract);
            c.current_dir(&dir).args(&argv);
            let s: Vec<(f64, u64)> = (0..args.runs).map(|_| timed(&mut c, None)).collect();
            let _ = writeln!(report, "{}", line(&format!("kcontract {name}"), &s));
        }
        report.push('\n');
        print!("{report}");
        report.clear();
    }
    real_build(&root, &kcontract, &args, mdbook);
    if let (Some(&(10, t10, f10)), Some(&(100, t100, f100))) = (
        builds.iter().find(|b| b.0 == 10),
        builds.iter().find(|b| b.0 == 100),
    ) {
        println!(
            "growth: t(×100) / t(×10) = {:.2} (kcontract build, rebuild), {:.2} (fresh output)",
            t100 / t10,
            f100 / f10
        );
    }
}

/// `kcontract build` in the repository itself, its tests scanned, against `mdbook build` of the
/// same English text (the ×1 book, generated when `--copies` did not include 1), alternating.
fn real_build(root: &Path, kcontract: &Path, args: &Args, mdbook: bool) {
    let x1 = args.out.join("x1");
    if !x1.join("mdbook/book.toml").exists() {
        let _ = fs::remove_dir_all(&x1);
        generate(&root.join("spec"), &x1, 1).expect("generate the ×1 inputs");
    }
    // What the build scans, as `check` reports it (`  tests   … N files scanned`).
    let scanned = Command::new(kcontract)
        .current_dir(root)
        .arg("check")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.trim_start().strip_prefix("tests"))
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "tests: unknown".into());
    println!("## the real build: this repository's spec/ and its tests ({scanned})");
    let out = std::env::temp_dir().join(format!("kcontract-bench-real-{}", std::process::id()));
    fs::create_dir_all(&out).expect("create the output folder");
    let mut ours = Command::new(kcontract);
    ours.current_dir(root)
        .arg("build")
        .arg("--out")
        .arg(out.join("kcontract"));
    let mut tools: Vec<(&str, Command)> = vec![("kcontract build (repository)", ours)];
    if mdbook {
        let mut c = Command::new("mdbook");
        c.current_dir(x1.join("mdbook"))
            .arg("build")
            .arg("-d")
            .arg(out.join("mdbook"));
        tools.push(("mdbook build (×1 book, en)", c));
    }
    let mut samples: Vec<Vec<(f64, u64)>> = vec![Vec::new(); tools.len()];
    // Alternating, each round in the other order (as above: a ratio needs runs made together).
    for run in 0..args.runs {
        for k in 0..tools.len() {
            let i = if run % 2 == 0 { k } else { tools.len() - 1 - k };
            samples[i].push(timed(&mut tools[i].1, None));
        }
    }
    for ((name, _), s) in tools.iter().zip(&samples) {
        println!("{}", line(name, s));
    }
    if samples.len() == 2 {
        println!(
            "  ratio kcontract / mdbook: {:.2}; median of the rounds' ratios {:.2}",
            median(&samples[0]) / median(&samples[1]),
            paired(&samples[0], &samples[1])
        );
    }
    let _ = fs::remove_dir_all(&out);
}

struct GenStats {
    chapters: usize,
    clauses: usize,
    en_bytes: usize,
}

/// The shipped spec ×N. Copy k of chapter `c` is `c-k`; clause ids get a last segment `n<k>`; all
/// other text is verbatim. The English text is also written as an mdBook
/// book and a Hugo content folder.
fn generate(spec: &Path, out: &Path, n: usize) -> std::io::Result<GenStats> {
    let contract = fs::read_to_string(spec.join("contract.yaml"))?;
    let chapters: Vec<String> = contract
        .lines()
        .skip_while(|l| !l.starts_with("chapters:"))
        .skip(1)
        .take_while(|l| l.starts_with("  - "))
        .map(|l| l.trim_start_matches("  - ").trim().to_string())
        .collect();
    let langs = ["en", "zh"];
    let mut names = Vec::new();
    let mut stats = GenStats {
        chapters: 0,
        clauses: 0,
        en_bytes: 0,
    };
    fs::create_dir_all(out.join("mdbook/src"))?;
    fs::create_dir_all(out.join("hugo/content/en"))?;
    fs::create_dir_all(out.join("hugo/content/zh"))?;
    fs::create_dir_all(out.join("hugo/layouts/_default"))?;
    fs::create_dir_all(out.join("hugo/layouts/partials"))?;
    let mut summary = String::from("# Summary\n\n");
    for k in 1..=n {
        for c in &chapters {
            let name = format!("{c}-{k}");
            for lang in langs {
                let text = fs::read_to_string(spec.join(lang).join(format!("{c}.md")))?;
                let mut body = String::with_capacity(text.len() + 1024);
                for line in text.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        let _ = writeln!(body, "id: {}.n{k}", id.trim());
                        if lang == "en" {
                            stats.clauses += 1;
                        }
                    } else {
                        // Links to another chapter go to that chapter's copy `k` (`check`
                        // resolves every link); where that changes a clause's text, its
                        // translations are re-stamped after generation (`restamp`).
                        let mut l = line.to_string();
                        for other in &chapters {
                            l = l.replace(&format!("]({other}.md"), &format!("]({other}-{k}.md"));
                        }
                        body.push_str(&l);
                        body.push('\n');
                    }
                }
                let dir = out.join("spec").join(lang);
                fs::create_dir_all(&dir)?;
                fs::write(dir.join(format!("{name}.md")), &body)?;
                let title = body.lines().next().unwrap_or("#").trim_start_matches("# ");
                if lang == "en" {
                    stats.en_bytes += body.len();
                    fs::write(out.join("mdbook/src").join(format!("{name}.md")), &body)?;
                    let _ = writeln!(summary, "- [{title} {k}](./{name}.md)");
                }
                // Hugo builds both languages, as kcontract does.
                fs::write(
                    out.join("hugo/content")
                        .join(lang)
                        .join(format!("{name}.md")),
                    format!(
                        "---\ntitle: \"{title} {k}\"\nweight: {}\n---\n\n{body}",
                        names.len() + 1
                    ),
                )?;
            }
            names.push(name);
        }
    }
    stats.chapters = names.len();
    // contract.yaml: everything before `chapters:` and from `upstream:` on, with the new chapter list.
    let head = &contract[..contract.find("chapters:").unwrap_or(0)];
    let tail = &contract[contract.find("upstream:").unwrap_or(contract.len())..];
    // The shipped contract's earlier versions (`history:`) are not copied: a top-level key's block
    // runs to the next line that starts at column 0 with a letter.
    let tail = match tail.find("\nhistory:") {
        Some(at) => {
            let rest = &tail[at + 1..];
            let end = rest
                .match_indices('\n')
                .map(|(i, _)| i + 1)
                .find(|&i| rest[i..].starts_with(|c: char| c.is_ascii_alphabetic()))
                .unwrap_or(rest.len());
            format!("{}{}", &tail[..at + 1], &rest[end..])
        }
        None => tail.to_string(),
    };
    let mut yaml = format!("{head}chapters:\n");
    for nm in &names {
        let _ = writeln!(yaml, "  - {nm}");
    }
    yaml.push_str(&tail);
    fs::write(out.join("spec/contract.yaml"), yaml)?;
    fs::write(out.join("mdbook/src/SUMMARY.md"), summary)?;
    fs::write(
        out.join("mdbook/book.toml"),
        "[book]\ntitle = \"Knative Runtime Contract\"\nlanguage = \"en\"\n\n[output.html]\n",
    )?;
    fs::write(
        out.join("hugo/config.toml"),
        "baseURL = \"http://localhost/\"\ntitle = \"Knative Runtime Contract\"\ndisableKinds = [\"taxonomy\", \"term\", \"RSS\", \"sitemap\"]\n\
         defaultContentLanguage = \"en\"\ndefaultContentLanguageInSubdir = true\n\
         [languages.en]\ncontentDir = \"content/en\"\nweight = 1\n\
         [languages.zh]\ncontentDir = \"content/zh\"\nweight = 2\n",
    )?;
    // Every page with a sidebar of its language's chapters, rendered once per language
    // (`partialCached`), as kcontract's pages have theirs.
    fs::write(
        out.join("hugo/layouts/partials/sidebar.html"),
        "<nav><ol>{{ range .Site.RegularPages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>{{ end }}</ol></nav>\n",
    )?;
    fs::write(
        out.join("hugo/layouts/_default/single.html"),
        "<!doctype html><html lang=\"{{ .Lang }}\"><head><meta charset=\"utf-8\"><title>{{ .Title }}</title></head><body>{{ partialCached \"sidebar.html\" . .Lang }}<main>{{ .Content }}</main></body></html>\n",
    )?;
    fs::write(
        out.join("hugo/layouts/_default/list.html"),
        "<!doctype html><html lang=\"{{ .Lang }}\"><head><meta charset=\"utf-8\"><title>{{ .Title }}</title></head><body>{{ partialCached \"sidebar.html\" . .Lang }}<ul>{{ range .Pages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>{{ end }}</ul></body></html>\n",
    )?;
    Ok(stats)
}

/// The copies' translations were current in the original, but a rewritten link changes a clause's
/// text and so its stamp: record them as reviewed again, so the copies build as the original does
/// (no stale translation shown twice).
fn restamp(kcontract: &Path, dir: &Path) {
    let status = Command::new(kcontract)
        .current_dir(dir)
        .args(["i18n", "stamp", "--all-reviewed"])
        .stdout(Stdio::null())
        .status()
        .expect("run kcontract i18n stamp");
    assert!(
        status.success(),
        "kcontract i18n stamp --all-reviewed failed in {}",
        dir.display()
    );
}

/// Before each timed run (untimed): write back what earlier runs left dirty in the page cache, as
/// hyperfine users do with `--prepare sync`. Without it, the kernel's writeback of the previous
/// tool's output (up to ~100 MB at ×100) ran on one of the two cores during the next tool's run,
/// and which tool paid for it depended on the order.
fn settle() {
    let _ = Command::new("sync").status();
}

/// Every ordering of `items`, in lexicographic order of positions (the first is `items` itself).
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let rest: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &x)| x)
            .collect();
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

/// Run once, timed: (wall seconds, peak RSS KiB; 0 if time(1) is absent), with the folder `clean`
/// (if any) removed before each run, untimed. The timed run is the command itself. The peak RSS comes from a second, untimed run under `/usr/bin/time -f %M`: timing
/// that run would add time(1)'s own start (a fork and an exec, ~1–2 ms on these VMs) to every tool,
/// a larger share of a 15 ms build than of a 60 ms one (Session 12, BENCHMARKS.md).
fn timed(cmd: &mut Command, clean: Option<&Path>) -> (f64, u64) {
    let clean = || {
        if let Some(d) = clean {
            let _ = fs::remove_dir_all(d);
        }
    };
    let like = |program: &std::ffi::OsStr| {
        let mut c = Command::new(program);
        if let Some(d) = cmd.get_current_dir() {
            c.current_dir(d);
        }
        c.stdout(Stdio::null()).stderr(Stdio::piped());
        c
    };
    let mut direct = like(cmd.get_program());
    direct.args(cmd.get_args());
    // The folder is removed before the `sync`, so the removal's writeback is not timed either.
    clean();
    settle();
    let start = Instant::now();
    let out = direct.output().expect("run the benchmarked command");
    let secs = start.elapsed().as_secs_f64();
    if !out.status.success() {
        eprintln!(
            "command failed: {:?}\n{}",
            cmd,
            String::from_utf8_lossy(&out.stderr)
        );
        std::process::exit(1);
    }
    if !Path::new("/usr/bin/time").exists() {
        return (secs, 0);
    }
    let rss_file = tempfile_path();
    let mut c = like("/usr/bin/time".as_ref());
    c.arg("-f").arg("%M").arg("-o").arg(&rss_file);
    c.arg(cmd.get_program()).args(cmd.get_args());
    clean();
    let _ = c.output();
    let rss = fs::read_to_string(&rss_file)
        .ok()
        .and_then(|s| s.trim().lines().last().and_then(|l| l.trim().parse().ok()))
        .unwrap_or(0);
    let _ = fs::remove_file(&rss_file);
    (secs, rss)
}

fn tempfile_path() -> PathBuf {
    std::env::temp_dir().join(format!("kcontract-bench-rss-{}", std::process::id()))
}

fn median(s: &[(f64, u64)]) -> f64 {
    let mut v: Vec<f64> = s.iter().map(|x| x.0).collect();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    }
}

/// The median of `a[r] / b[r]` over the rounds r: each ratio is between two runs made minutes
/// closer together than the medians' runs, so it is less moved by the VM's drift.
fn paired(a: &[(f64, u64)], b: &[(f64, u64)]) -> f64 {
    let ratios: Vec<(f64, u64)> = a.iter().zip(b).map(|(x, y)| (x.0 / y.0, 0)).collect();
    median(&ratios)
}

fn line(name: &str, s: &[(f64, u64)]) -> String {
    let min = s.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
    let max = s.iter().map(|x| x.0).fold(0.0, f64::max);
    let rss = s.iter().map(|x| x.1).max().unwrap_or(0);
    format!(
        "  {name:<32} median {:>8.1} ms  [{:.1}–{:.1}]  peak RSS {:>6.1} MB",
        median(s) * 1e3,
        min * 1e3,
        max * 1e3,
        rss as f64 / 1024.0
    )
}

fn version(tool: &Path) -> String {
    let arg = if tool == Path::new("hugo") {
        "version"
    } else {
        "--version"
    };
    Command::new(tool)
        .arg(arg)
        .output()
        .ok()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn uname() -> String {
    Command::new("uname")
        .arg("-srm")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}
