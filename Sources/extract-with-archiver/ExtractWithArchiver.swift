import ArchiverCLI
import JobKit

@main
enum ExtractWithArchiver {
    static func main() { CommandRunner.main(ExtractCommand.self) }
}
