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

/// A required positive integer key.
inline llvm::Error readPositive(const llvm::json::Object &config,
                                llvm::StringRef key, int64_t &out) {
  const llvm::json::Value *value = config.get(key);
  if (!value)
    return keyError(key, "missing");
  std::optional<int64_t> number = value->getAsInteger();
  if (!number || *number <= 0)
    return keyError(key, "must be a positive integer");
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
