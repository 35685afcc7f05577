/* NOT Microsoft's <wtypesbase.h>: a test stand-in (see windows.h here) for the one type
   directml_subset.h takes from it. */
#ifndef DMLS_MSVC_STANDIN_WTYPESBASE_H
#define DMLS_MSVC_STANDIN_WTYPESBASE_H
typedef double DOUBLE;
#endif
