// libpq from Debian's libpq-dev. Linked into lib-server only (never lib).
#include <postgresql/libpq-fe.h>
