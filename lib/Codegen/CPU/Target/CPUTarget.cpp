//===- CPUTarget.cpp - The CPU that code is generated for -----------------===//

#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <algorithm>
#include <thread>

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The ISA features codegen decides on, as the attribute lists them.
constexpr llvm::StringLiteral kAVX512 = "avx512f", kAVX2 = "avx2", kFMA = "fma",
                              kVNNI = "avx512vnni", kBF16 = "avx512bf16",
                              kAMX = "amx-tile";

/// A size in sysfs' notation ("32K", "1M") in bytes; 0 when unreadable.
uint64_t parseCacheSize(llvm::StringRef text) {
  text = text.trim();
  uint64_t scale = 1;
  if (text.consume_back("K"))
    scale = 1024;
  else if (text.consume_back("M"))
    scale = 1024 * 1024;
  uint64_t value = 0;
  if (text.getAsInteger(10, value))
    return 0;
  return value * scale;
}

/// Reads one line of a sysfs file; empty when absent.
std::string readSysfs(const llvm::Twine &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileAsStream(path);
  if (!file)
    return "";
  return (*file)->getBuffer().trim().str();
}

/// The host's data caches from Linux's sysfs (the defaults elsewhere).
void detectHostCaches(CPUTarget &target) {
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        llvm::formatv("/sys/devices/system/cpu/cpu0/cache/index{0}/", index);
    std::string type = readSysfs(dir + "type");
    if (type.empty())
      break;
    if (type == "Instruction")
      continue;
    uint64_t size = parseCacheSize(readSysfs(dir + "size"));
    if (size == 0)
      continue;
    std::string level = readSysfs(dir + "level");
    if (level == "1")
      target.l1dBytes = size;
    else if (level == "2")
      target.l2Bytes = size;
    else if (level == "3")
      target.l3Bytes = size;
  }
}

/// Every feature name some x86 CPU that LLVM knows has, to tell a misspelt
/// --target-features entry from a real one.
const llvm::StringSet<> &getKnownFeatures() {
  static const llvm::StringSet<> known = [] {
    llvm::StringSet<> names;
    SmallVector<llvm::StringRef> cpus;
    llvm::X86::fillValidCPUArchList(cpus, /*Only64Bit=*/true);
    for (llvm::StringRef cpu : cpus) {
      SmallVector<llvm::StringRef> features;
      llvm::X86::getFeaturesForCPU(cpu, features);
      for (llvm::StringRef feature : features)
        names.insert(feature);
    }
    for (llvm::StringRef extra : {"avx512vnni", "avx512bf16", "amx-tile",
                                  "amx-bf16", "amx-int8", "avxvnni"})
      names.insert(extra);
    return names;
  }();
  return known;
}

/// Fills in what codegen derives from the feature map.
void setFromFeatures(CPUTarget &target, const llvm::StringMap<bool> &features) {
  auto has = [&](llvm::StringRef name) { return features.lookup(name); };
  target.hasAVX512 = has(kAVX512);
  target.hasAVX2 = has(kAVX2);
  target.hasFMA = has(kFMA);
  target.hasVNNI = has(kVNNI);
  target.hasBF16 = has(kBF16);
  target.hasAMX = has(kAMX);
  target.vectorBits = target.hasAVX512 ? 512 : has("avx") ? 256 : 128;
  target.vectorRegisters = target.hasAVX512 ? 32 : 16;
  target.llvmFeatures.clear();
  for (const llvm::StringMapEntry<bool> &entry : features)
    target.llvmFeatures.push_back((entry.getValue() ? "+" : "-") +
                                  entry.getKey().str());
  llvm::sort(target.llvmFeatures);
}

unsigned getHostCores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<std::string> getISAList(const CPUTarget &target) {
  std::vector<std::string> isa;
  for (auto [flag, name] :
       {std::pair(target.hasAVX512, kAVX512), std::pair(target.hasAVX2, kAVX2),
        std::pair(target.hasFMA, kFMA), std::pair(target.hasVNNI, kVNNI),
        std::pair(target.hasBF16, kBF16), std::pair(target.hasAMX, kAMX)})
    if (flag)
      isa.push_back(name.str());
  return isa;
}

} // namespace

const CPUTarget &CPUTarget::host() {
  static const CPUTarget host = [] {
    CPUTarget target;
    target.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    for (const auto &entry : llvm::sys::getHostCPUFeatures())
      features[entry.getKey()] = entry.getValue();
    setFromFeatures(target, features);
    detectHostCaches(target);
    target.cores = getHostCores();
    target.threads = target.cores;
    return target;
  }();
  return host;
}

llvm::Expected<CPUTarget> CPUTarget::resolve(llvm::StringRef cpu,
                                             llvm::StringRef features,
                                             unsigned threads) {
  const CPUTarget &hostTarget = host();
  CPUTarget target = hostTarget;
  llvm::StringMap<bool> map;
  bool namedCPU = !cpu.empty() && cpu != "host" && cpu != hostTarget.cpu;
  if (namedCPU) {
    if (llvm::X86::parseArchX86(cpu, /*Only64Bit=*/true) == llvm::X86::CK_None)
      return llvm::createStringError(
          "unknown target CPU '%s' (llc -mcpu=help lists x86 CPU names)",
          cpu.str().c_str());
    SmallVector<llvm::StringRef> cpuFeatures;
    llvm::X86::getFeaturesForCPU(cpu, cpuFeatures);
    for (llvm::StringRef feature : cpuFeatures)
      llvm::X86::updateImpliedFeatures(feature, true, map);
    for (llvm::StringRef feature : cpuFeatures)
      map[feature] = true;
    target.cpu = cpu.str();
    // Another machine's caches are unknown here: those of a typical server
    // core.
    CPUTarget defaults;
    target.l1dBytes = defaults.l1dBytes;
    target.l2Bytes = defaults.l2Bytes;
    target.l3Bytes = defaults.l3Bytes;
  } else {
    for (const std::string &feature : hostTarget.llvmFeatures)
      map[llvm::StringRef(feature).drop_front()] = feature[0] == '+';
  }
  SmallVector<llvm::StringRef> changes;
  features.split(changes, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  bool changed = false;
  for (llvm::StringRef change : changes) {
    change = change.trim();
    if (change.empty())
      continue;
    changed = true;
    bool enable = change.consume_front("+");
    if (!enable && !change.consume_front("-"))
      return llvm::createStringError(
          "target feature '%s' must start with '+' or '-' (as in "
          "'-avx512f')",
          change.str().c_str());
    if (!getKnownFeatures().contains(change))
      return llvm::createStringError(
          "unknown target feature '%s' (an x86 ISA feature as llc's -mattr "
          "names it, such as avx512f or fma)",
          change.str().c_str());
    llvm::X86::updateImpliedFeatures(change, enable, map);
    map[change] = enable;
  }
  setFromFeatures(target, map);
  target.isHost = !namedCPU && !changed;
  target.threads = threads > 0 ? threads : target.cores;
  return target;
}

CPUTarget CPUTarget::forOp(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  auto attr = module ? module->getAttrOfType<DictionaryAttr>(kTargetAttrName)
                     : DictionaryAttr();
  if (attr) {
    // The dialect verified the attribute; should it be malformed anyway, the
    // host's description is used, and nothing is reported.
    ScopedDiagnosticHandler silence(module.getContext(),
                                    [](Diagnostic &) { return success(); });
    FailureOr<CPUTarget> target =
        fromAttr(attr, [&] { return mlir::emitError(module.getLoc()); });
    if (succeeded(target))
      return *target;
  }
  return host();
}

DictionaryAttr CPUTarget::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<Attribute> isa;
  for (const std::string &name : getISAList(*this))
    isa.push_back(b.getStringAttr(name));
  auto i64 = [&](uint64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("cpu", b.getStringAttr(cpu)),
      b.getNamedAttr("isa", b.getArrayAttr(isa)),
      b.getNamedAttr("vector_bits", i64(vectorBits)),
      b.getNamedAttr("vector_registers", i64(vectorRegisters)),
      b.getNamedAttr("l1d", i64(l1dBytes)),
      b.getNamedAttr("l2", i64(l2Bytes)),
      b.getNamedAttr("l3", i64(l3Bytes)),
      b.getNamedAttr("cores", i64(cores)),
      b.getNamedAttr("threads", i64(threads))};
  return b.getDictionaryAttr(entries);
}

FailureOr<CPUTarget>
CPUTarget::fromAttr(DictionaryAttr attr,
                    function_ref<InFlightDiagnostic()> emitError) {
  CPUTarget target;
  target.isHost = false;
  auto cpuName = attr.getAs<StringAttr>("cpu");
  if (!cpuName)
    return emitError() << "'" << kTargetAttrName
                       << "' needs a string 'cpu' entry";
  target.cpu = cpuName.str();
  auto isa = attr.getAs<ArrayAttr>("isa");
  if (!isa)
    return emitError() << "'" << kTargetAttrName
                       << "' needs an array of strings 'isa' entry";
  for (Attribute entry : isa) {
    auto name = dyn_cast<StringAttr>(entry);
    if (!name)
      return emitError() << "'" << kTargetAttrName
                         << "' isa entries must be strings";
    llvm::StringRef n = name.getValue();
    if (n == kAVX512)
      target.hasAVX512 = true;
    else if (n == kAVX2)
      target.hasAVX2 = true;
    else if (n == kFMA)
      target.hasFMA = true;
    else if (n == kVNNI)
      target.hasVNNI = true;
    else if (n == kBF16)
      target.hasBF16 = true;
    else if (n == kAMX)
      target.hasAMX = true;
    else
      return emitError() << "'" << kTargetAttrName << "' has unknown isa '" << n
                         << "' (expected " << kAVX512 << ", " << kAVX2 << ", "
                         << kFMA << ", " << kVNNI << ", " << kBF16 << " or "
                         << kAMX << ")";
  }
  // Integers from 1 to `max` (a value a user wrote may be of any width).
  auto readInt = [&](llvm::StringRef key, auto &field,
                     int64_t max) -> LogicalResult {
    auto value = attr.getAs<IntegerAttr>(key);
    if (!value || value.getValue().getSignificantBits() > 63 ||
        value.getValue().getSExtValue() < 1 ||
        value.getValue().getSExtValue() > max)
      return emitError() << "'" << kTargetAttrName << "' needs an integer '"
                         << key << "' entry from 1 to " << max;
    field = value.getValue().getSExtValue();
    return success();
  };
  constexpr int64_t kMaxCacheBytes = int64_t(1) << 40, kMaxCores = 4096;
  if (failed(readInt("vector_bits", target.vectorBits, 512)) ||
      failed(readInt("vector_registers", target.vectorRegisters, 64)) ||
      failed(readInt("l1d", target.l1dBytes, kMaxCacheBytes)) ||
      failed(readInt("l2", target.l2Bytes, kMaxCacheBytes)) ||
      failed(readInt("l3", target.l3Bytes, kMaxCacheBytes)) ||
      failed(readInt("cores", target.cores, kMaxCores)) ||
      failed(readInt("threads", target.threads, kMaxCores)))
    return failure();
  if (target.vectorBits != 128 && target.vectorBits != 256 &&
      target.vectorBits != 512)
    return emitError() << "'" << kTargetAttrName
                       << "' vector_bits must be 128, 256 or 512, got "
                       << target.vectorBits;
  if (target.vectorRegisters < 8)
    return emitError() << "'" << kTargetAttrName
                       << "' vector_registers must be 8 to 64, got "
                       << target.vectorRegisters;
  return target;
}

std::vector<std::string> CPUTarget::featuresMissingOnHost() const {
  // Only what the host's detection reports as absent: it does not list
  // baseline features (x87, cmov) that every x86-64 CPU has.
  llvm::StringSet<> absent;
  for (const std::string &feature : host().llvmFeatures)
    if (feature[0] == '-')
      absent.insert(llvm::StringRef(feature).drop_front());
  std::vector<std::string> missing;
  for (const std::string &feature : llvmFeatures)
    if (feature[0] == '+' &&
        absent.contains(llvm::StringRef(feature).drop_front()))
      missing.push_back(feature.substr(1));
  return missing;
}

RegisterTile CPUTarget::contractionRegisterTile() const {
  RegisterTile tile;
  tile.n = 2 * f32Lanes();
  // 2m accumulators, B's two vectors and A's broadcast in registers. With
  // 16 ymm that is 6 rows: 12 accumulators, where 4 rows' 8 would be
  // exactly the FMAs in flight, leaving no slack for a late load (measured
  // on Zen 3: 5-8% faster GPT-2 blocks).
  int64_t rows = (static_cast<int64_t>(vectorRegisters) - 3) / 2;
  tile.m = std::clamp<int64_t>(rows, 1, kMaxRegisterTileRows);
  return tile;
}

CacheTile CPUTarget::contractionCacheTile() const {
  CacheTile tile;
  RegisterTile registers = contractionRegisterTile();
  int64_t bytes = 4;
  // B's packed panel (k x register n) in two thirds of the L1, the rest for
  // the lines of A's rows and C in flight. The longer the panel, the fewer
  // times each register tile's accumulators are loaded and stored and its k
  // loop left (a 48 KiB L1 takes 256 steps of 32 lanes, a 32 KiB one 128).
  tile.k = std::clamp<int64_t>(
      llvm::bit_floor(l1dBytes * 2 / 3 / (registers.n * bytes)), 64, 256);
  tile.n = std::clamp<int64_t>(llvm::bit_floor(l2Bytes / 2 / (tile.k * bytes)),
                               registers.n, 256);
  // The k x m block of A that the register tiles stream for each panel of
  // B in a quarter of the L2, 128 to 256 rows: a taller tile packs B's
  // block once for more rows (7-10% of a 2048^3 or 512 x 896 x 4864 matmul
  // on Zen 5). The fusion pass halves it back to 128 where the threads
  // would get too few tiles. A multiple of the register rows, rounded up
  // (258 with 6) so that 256 rows are still one tile.
  int64_t rows = std::clamp<int64_t>(
      llvm::bit_floor(l2Bytes / 4 / (tile.k * bytes)), 128, 256);
  tile.m = llvm::alignTo(rows, registers.m);
  return tile;
}

void CPUTarget::print(llvm::raw_ostream &os) const {
  RegisterTile registers = contractionRegisterTile();
  CacheTile cache = contractionCacheTile();
  os << "target cpu:       " << cpu << (isHost ? " (host)" : "") << "\n";
  os << "isa:              " << llvm::join(getISAList(*this), ", ") << "\n";
  os << "vector registers: " << vectorRegisters << " x " << vectorBits
     << " bits (" << f32Lanes() << " f32 lanes)\n";
  os << "caches:           L1d " << l1dBytes / 1024 << " KiB, L2 "
     << l2Bytes / 1024 << " KiB, L3 " << l3Bytes / 1024 << " KiB\n";
  os << "cores:            " << cores << " (threads " << threads << ")\n";
  os << "contraction:      register tile " << registers.m << " x "
     << registers.n << ", cache tile " << cache.m << " x " << cache.n << " x "
     << cache.k << "\n";
}
