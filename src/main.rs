fn main() -> std::process::ExitCode {
    kcontract::cli::run()
}
