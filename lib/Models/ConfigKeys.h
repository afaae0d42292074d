//===- ConfigKeys.h - Reading the keys of a config.json ---------*- C++ -*-===//
//
// Every importer reads its config the same way: a missing or unusable key
// is a one-line error that names the key.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_MODELS_CONFIGKEYS_H
#define TRANSFORMER_LIB_MODELS_CONFIGKEYS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdint>

namespace mlir::transformer::models {

/// "config key 'KEY': WHY".
inline llvm::Error keyError(llvm::StringRef key, const llvm::Twine &why) {
  return llvm::createStringError("config key '" + key + "': " + why);
}

/// Whether `key` is absent or null.
inline bool isAbsent(const llvm::json::Object &config, llvm::StringRef key) {
  const llvm::json::Value *value = config.get(key);
  return !value || value->kind() == llvm::json::Value::Null;
}

/// The largest size a config may give (widths, vocabularies, positions):
/// far above any published model, and low enough that products of two
/// sizes fit in 64 bits.
constexpr int64_t kMaxConfigSize = int64_t(1) << 24;
/// The most layers a config may give (each is a few hundred ops).
constexpr int64_t kMaxConfigLayers = 1024;

/// A required positive integer key, at most `max`.
inline llvm::Error readPositive(const llvm::json::Object &config,
                                llvm::StringRef key, int64_t &out,
                                int64_t max = kMaxConfigSize) {
  const llvm::json::Value *value = config.get(key);
  if (!value)
    return keyError(key, "missing");
  std::optional<int64_t> number = value->getAsInteger();
  if (!number || *number <= 0)
    return keyError(key, "must be a positive integer");
  if (*number > max)
    return keyError(key, llvm::Twine(*number) + " is too large (at most " +
                             llvm::Twine(max) + ")");
  out = *number;
  return llvm::Error::success();
}

/// A positive number; `out` keeps its default when the key is absent or
/// null.
inline llvm::Error readPositiveNumber(const llvm::json::Object &config,
                                      llvm::StringRef key, double &out) {
  if (isAbsent(config, key))
    return llvm::Error::success();
  std::optional<double> number = config.get(key)->getAsNumber();
  if (!number || !(*number > 0) || !std::isfinite(*number))
    return keyError(key, "must be a positive number");
  out = *number;
  return llvm::Error::success();
}

/// A positive number that stays positive and finite as an f32 (an
/// epsilon, which the module holds as an f32 attribute).
inline llvm::Error readPositiveF32(const llvm::json::Object &config,
                                   llvm::StringRef key, double &out) {
  double value = out;
  if (llvm::Error err = readPositiveNumber(config, key, value))
    return err;
  float narrowed = static_cast<float>(value);
  if (!(narrowed > 0) || !std::isfinite(narrowed))
    return keyError(key, "must be a positive number within f32's range");
  out = value;
  return llvm::Error::success();
}

/// A boolean; `out` keeps its default when the key is absent or null.
inline llvm::Error readBool(const llvm::json::Object &config,
                            llvm::StringRef key, bool &out) {
  if (isAbsent(config, key))
    return llvm::Error::success();
  std::optional<bool> value = config.get(key)->getAsBoolean();
  if (!value)
    return keyError(key, "must be true or false");
  out = *value;
  return llvm::Error::success();
}

} // namespace mlir::transformer::models

#endif // TRANSFORMER_LIB_MODELS_CONFIGKEYS_H
