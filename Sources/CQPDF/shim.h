#ifndef ARCHIVER_CQPDF_SHIM_H
#define ARCHIVER_CQPDF_SHIM_H
/* qpdf's C API (object handles, QPDFJob). Content-stream transformation matrices need its C++ API,
   reached through the C++ shim target that depends on this module. */
#include <qpdf/qpdf-c.h>
#include <qpdf/qpdfjob-c.h>
#endif
