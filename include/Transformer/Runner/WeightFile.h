//===- WeightFile.h - A file of named weights -------------------*- C++ -*-===//
//
// What `--parameters=FILE` binds arguments from: a .safetensors file or a
// GGUF file (llama.cpp's), behind one interface. Kept free of MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_WEIGHTFILE_H
#define TRANSFORMER_RUNNER_WEIGHTFILE_H

#include "Transformer/Runner/BlockQuant.h"
#include "Transformer/Runner/HostTensor.h"

#include "llvm/ADT/FunctionExtras.h"

#include <memory>

namespace llvm {
class WritableMemoryBuffer;
} // namespace llvm

namespace mlir::transformer::runner {

/// A tensor of a weight file, checked against the argument it binds to from
/// the file's metadata, whose bytes are read (copied, converted, transposed,
/// quantized) only by read(). transformer-run checks every parameter before
/// it compiles and reads them once the compiler's memory is given back, so
/// that the compiler's peak and the converted weights never add up. It reads
/// from its WeightFile, which must outlive it.
class PendingTensor {
public:
  using Reader = llvm::unique_function<llvm::Expected<HostTensor>()>;
  /// Reads a matrix [k, n] laid out in panels of the given width, [n /
  /// width, k, width] (ValueSignature::panelWidth), in one pass.
  using PanelReader =
      llvm::unique_function<llvm::Expected<HostTensor>(int64_t)>;
  explicit PendingTensor(Reader reader, PanelReader panelReader = nullptr)
      : reader(std::move(reader)), panelReader(std::move(panelReader)) {}
  /// The tensor. Fails only on what the metadata cannot tell (memory).
  llvm::Expected<HostTensor> read() { return reader(); }
  /// Whether readInPanels can be called: the reader makes a copy anyway
  /// (a transpose), which can be written in panels at no extra cost.
  bool canReadInPanels() const { return static_cast<bool>(panelReader); }
  llvm::Expected<HostTensor> readInPanels(int64_t width) {
    return panelReader(width);
  }

private:
  Reader reader;
  PanelReader panelReader;
};

/// An opened, validated file of named tensors.
class WeightFile {
public:
  virtual ~WeightFile();

  /// Tensor `name` (the module's name for it) as a HostTensor of `type`
  /// and `shape` (what the argument it is bound to declares; a dynamic dim,
  /// < 0, takes the file's size), converted when the file stores it in
  /// another float type. A missing name, another shape or an unusable type
  /// is a one-line error naming the tensor, found before anything is read.
  virtual llvm::Expected<PendingTensor>
  prepareTensor(llvm::StringRef name, ElementType type,
                llvm::ArrayRef<int64_t> shape) = 0;

  /// Tensor `name` as ggml blocks of `format` for an argument of `shape`
  /// ([rows, blocks, block bytes] of i8: a [rows, 32 * blocks] matrix). With
  /// `transposed`, the file holds the matrix transposed ([32 * blocks, rows],
  /// a Hugging Face Conv1D weight). This default reads the tensor as f32 and
  /// quantizes each row as ggml does; GGUF files bind their own blocks.
  virtual llvm::Expected<PendingTensor>
  prepareBlockTensor(llvm::StringRef name, QuantFormat format,
                     llvm::ArrayRef<int64_t> shape, bool transposed);
  /// Tensor `name` for an argument of `shape` [rows, columns] whose file
  /// holds its transpose [columns, rows] (an nn.Linear weight [out, in]
  /// that the module reads as [in, out]; `transformer.transposed`),
  /// converted as prepareTensor converts. The transpose is made once, when
  /// read; the file's pages it read are then dropped from memory when the
  /// file is mapped, so that binding costs the tensor's size, not twice it.
  llvm::Expected<PendingTensor>
  prepareTransposedTensor(llvm::StringRef name, ElementType type,
                          llvm::ArrayRef<int64_t> shape);

  /// The prepare* functions' tensors, read at once.
  llvm::Expected<HostTensor> getTensor(llvm::StringRef name, ElementType type,
                                       llvm::ArrayRef<int64_t> shape);
  llvm::Expected<HostTensor> getBlockTensor(llvm::StringRef name,
                                            QuantFormat format,
                                            llvm::ArrayRef<int64_t> shape,
                                            bool transposed);
  llvm::Expected<HostTensor> getTransposedTensor(llvm::StringRef name,
                                                 ElementType type,
                                                 llvm::ArrayRef<int64_t> shape);
  virtual llvm::StringRef getPath() const = 0;

  /// Gives back the pages of a mapped file that [data, data + bytes) covers
  /// whole, once a conversion has read them: they are the file's,
  /// unmodified (nothing writes the private mapping), so a later read maps
  /// them again. Does nothing for a file read into memory, or for data that
  /// is not the file's.
  void dropPages(const void *data, size_t bytes) const;

protected:
  /// How much of the file a conversion reads before it gives those pages
  /// back (dropPages): a large tensor is never resident whole twice.
  static constexpr int64_t kDropChunkBytes = int64_t{16} << 20;
  /// The file's bytes: mapped (copy-on-write) or, for a small file, read.
  std::shared_ptr<llvm::WritableMemoryBuffer> buffer;
};

/// "parameter 'NAME': WHY", the form of every binding error.
llvm::Error parameterError(llvm::StringRef name, const llvm::Twine &why);

/// Checks that `shape` is [rows, blocks, block bytes of `format`], static,
/// for the block-quantized parameter `name`.
llvm::Error checkBlockShape(llvm::StringRef name, QuantFormat format,
                            llvm::ArrayRef<int64_t> shape);

/// The bytes of the weight file `path`: a private (copy-on-write) mapping
/// for files above a few pages, a small file read into memory. The error
/// names the path.
llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>>
readWeightFileBytes(llvm::StringRef path);

/// Opens `path` as a GGUF file when it starts with the GGUF magic, as a
/// .safetensors file otherwise.
llvm::Expected<std::shared_ptr<WeightFile>>
openWeightFile(llvm::StringRef path);

/// `[2, 3]`, as the weight readers write shapes in messages (a dynamic dim,
/// < 0, as `?`).
std::string shapeString(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_WEIGHTFILE_H
