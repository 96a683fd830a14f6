#ifndef CSQUASHFS_SHIM_H
#define CSQUASHFS_SHIM_H
// libsquashfs (squashfs-tools-ng), read side only: CSquashfsShim turns an image into a tar stream.
#include <sqfs/predef.h>
#include <sqfs/compressor.h>
#include <sqfs/data_reader.h>
#include <sqfs/dir_reader.h>
#include <sqfs/error.h>
#include <sqfs/id_table.h>
#include <sqfs/inode.h>
#include <sqfs/io.h>
#include <sqfs/super.h>
#endif
