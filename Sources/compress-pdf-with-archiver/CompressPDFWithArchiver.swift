import JobKit
import PDFCLI

@main enum CompressPDFWithArchiver {
    static func main() { CommandRunner.main(CompressPDFCommand.self) }
}
