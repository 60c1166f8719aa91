/* The 16-thread soak of bench/soak_threads.c (receipt validation, permission changes and
 * EULA acceptances on one store handle) for a few seconds: no failure, exact counts, a sound
 * store. $GATEKIT_SOAK_SECONDS sets the time (default 3; `make soak` runs 5 minutes). */
#include "check.h"

#define main soak_threads_main
#include "../../bench/soak_threads.c"
#undef main

int main(void) {
    char *args[] = {"soak_threads", "3", NULL};
    CHECK(soak_threads_main(2, args) == 0);
    return check_report("test_thread_soak");
}
