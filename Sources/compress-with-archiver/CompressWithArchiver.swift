import ArchiverCLI

@main
enum CompressWithArchiver {
    static func main() { CommandRunner.main(CompressCommand.self) }
}
