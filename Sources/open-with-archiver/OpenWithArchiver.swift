import JobKit
import MountCLI

@main
enum OpenWithArchiver {
    static func main() { CommandRunner.main(MountCommand.self) }
}
