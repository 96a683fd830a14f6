// libfuse3 refuses to be included without an API version; CFuseShim wraps what Swift needs.
#define FUSE_USE_VERSION 314
#include <fuse.h>
