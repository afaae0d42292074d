// RUN: transformer-opt --show-dialects | FileCheck %s
// CHECK: Available Dialects:
// CHECK-SAME: transformer
