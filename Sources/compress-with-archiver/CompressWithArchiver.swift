import ArchiverCLI
import JobKit

@main
enum CompressWithArchiver {
    static func main() { CommandRunner.main(CompressCommand.self) }
}
