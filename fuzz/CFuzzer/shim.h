#include <stddef.h>
#include <stdint.h>

// libFuzzer's own driver (compiler-rt's FuzzerInterface.h), called from a Swift main: SwiftPM gives every
// executable a main of its own, so libFuzzer's cannot be the one that runs.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
