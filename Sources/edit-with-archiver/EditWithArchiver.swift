import ArchiverCLI
import JobKit

@main
enum EditWithArchiver {
    static func main() { CommandRunner.main(EditCommand.self) }
}
