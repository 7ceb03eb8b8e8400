fn main() {
    std::process::exit(irc::cli::main());
}
