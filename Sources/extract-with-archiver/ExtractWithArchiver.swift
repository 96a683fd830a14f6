import ArchiverCLI

@main
enum ExtractWithArchiver {
    static func main() { CommandRunner.main(ExtractCommand.self) }
}
