// Times ONNX models with ONNX Runtime's CPU execution provider (npm's
// onnxruntime-node), as bench/baselines.py asks: reads a JSON job
// {"threads": N, "budget_s": S, "min_reps": R, "models": [{"name", "model",
// "inputs": {"in0": ".npy", ...}}]} and prints {"name": {"median_ms", "reps"} or
// {"error"}, ..., "version": ...}.
//
// Usage: node ort_bench.js JOB.json   (NODE_PATH names the onnxruntime-node
// install; bench/run.sh makes it)
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

/// A .npy file (version 1 or 2, little-endian f4, i4 or i8, C order) as an
/// ort.Tensor.
function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(path + ': not a .npy file');
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(path + ': Fortran order');
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1]
    .split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const bytes = buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + buf.length);
  switch (descr) {
    case '<f4': return new ort.Tensor('float32', new Float32Array(bytes), shape);
    case '<i4': return new ort.Tensor('int32', new Int32Array(bytes), shape);
    case '<i8': return new ort.Tensor('int64', new BigInt64Array(bytes), shape);
    default: throw new Error(path + ': unsupported dtype ' + descr);
  }
}

async function timeModel(job, entry) {
  const session = await ort.InferenceSession.create(entry.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: job.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const name of session.inputNames) {
    if (!(name in entry.inputs)) throw new Error('the model has an input ' + name + ' that has no file');
    feeds[name] = readNpy(entry.inputs[name]);
  }
  let start = process.hrtime.bigint();
  await session.run(feeds);
  const first = Number(process.hrtime.bigint() - start) / 1e9;
  const reps = Math.max(job.min_reps, Math.min(1000, Math.floor(job.budget_s / Math.max(first, 1e-6))));
  const times = [];
  for (let r = 0; r < reps; ++r) {
    start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median_ms: times[Math.floor(times.length / 2)], reps };
}

(async () => {
  const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const out = {};
  for (const entry of job.models) {
    try {
      out[entry.name] = await timeModel(job, entry);
    } catch (e) {
      out[entry.name] = { error: String(e.message || e).split('\n')[0] };
    }
  }
  out.version = ort.env.versions.node || ort.env.versions.common;
  process.stdout.write(JSON.stringify(out));
})();
