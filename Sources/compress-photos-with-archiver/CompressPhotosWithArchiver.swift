import JobKit
import PhotoCLI

@main
enum CompressPhotosWithArchiver {
    static func main() { CommandRunner.main(PhotoCommand.self) }
}
