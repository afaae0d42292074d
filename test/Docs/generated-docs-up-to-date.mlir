// The op, dialect and pass references in docs/generated are built by
// mlir-tblgen from the .td files; this fails when the checked-in copies drift.
// Refresh them with `cmake --build build --target update-docs`.
// RUN: diff -u %src_root/docs/generated/TransformerDialect.md %obj_root/docs/Transformer/TransformerDialect.md
// RUN: diff -u %src_root/docs/generated/TransformerOps.md %obj_root/docs/Transformer/TransformerOps.md
// RUN: diff -u %src_root/docs/generated/TransformerPasses.md %obj_root/docs/Transformer/TransformerPasses.md
// RUN: diff -u %src_root/docs/generated/TransformerConversionPasses.md %obj_root/docs/Transformer/TransformerConversionPasses.md
// RUN: diff -u %src_root/docs/generated/TransformerCodegenCPUPasses.md %obj_root/docs/Transformer/TransformerCodegenCPUPasses.md
