/* e2e_main: test_e2e's main: `test_e2e NAME` runs the test e2e.NAME of e2e.h's list, `test_e2e bad
 * CASE` the stash-sim bad-input case bad.CASE of tests/bad/cases.txt. */
#include "e2e.h"

#define E2E_ENTRY(name) {#name, test_##name},
static const test_entry tests[] = {E2E_TESTS(E2E_ENTRY)};

int main(int argc, char** argv)
{
  const test_program program = {"test_e2e", tests, sizeof(tests) / sizeof(tests[0]), "tests/bad/cases.txt", SS_SIM_BIN,
                                NULL,       NULL};
  return test_main(argc, argv, &program);
}
