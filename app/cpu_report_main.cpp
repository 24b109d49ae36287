// cpu_report: which CPU this is and which kernels inference runs on it
// (kernels/cpu_report.h); scripts/test.sh prints it before the suite.
#include <iostream>

#include "kernels/cpu_report.h"

int main() {
  std::cout << nmt::kernels::cpu_report_text();
  return 0;
}
