// CArgumentVector: argc and argv for the Swift runtime of the static `lib`
// (see argument_vector.c). Nothing to call: linking it in is the point.
#ifndef CARGUMENTVECTOR_H
#define CARGUMENTVECTOR_H
#endif
