import Foundation

/// The Python modules the tests' generator scripts share (`python/`: `handmade_pdf`), instead of a copy
/// pasted into each script.
public enum PythonHelpers {
    /// The folder of the modules.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python").path

    /// The first lines of a generator script: the modules' folder on `sys.path`, and no `__pycache__`
    /// written into the checkout.
    public static var prelude: String {
        "import sys\nsys.dont_write_bytecode = True\nsys.path.insert(0, \(String(reflecting: folder)))\n"
    }
}
