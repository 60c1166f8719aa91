/* A process that loads its libraries and exits: built by bench/bench_launch.c linking libcrypto
 * alone, libcrypto and the one-function Swift library (bench/launch/tiny), or libcrypto and
 * libgatekit, to time what loading each costs. */
int main(void) { return 0; }
