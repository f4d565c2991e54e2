// Loaded into the gateway by `pnpm bench:gateway --heap-profile FILE` (node --import): V8's
// sampling heap profiler over the load window only. The bench sends SIGUSR2 as the load starts
// (sampling begins) and again as it ends (the profile is written to NEXUS_BENCH_HEAP_PROFILE).
// Objects already collected by a minor or major GC are kept in the profile, so short-lived
// garbage (most of what a turn allocates) is counted where it was allocated.
// `node bench/heap-profile-summary.ts FILE` reads it.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.NEXUS_BENCH_HEAP_PROFILE;
if (file) {
  const session = new Session();
  session.connect();
  let state = 'idle';
  process.on('SIGUSR2', () => {
    if (state === 'idle') {
      state = 'sampling';
      session.post('HeapProfiler.startSampling', {
        // Bytes between samples on average: fine enough for sites of ~1 KB a turn over 2,000 turns.
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else if (state === 'sampling') {
      state = 'done';
      // The in-process session answers synchronously: the file is written before this returns.
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (error) console.error('heap profile:', error);
        else writeFileSync(file, JSON.stringify(result.profile));
      });
    }
  });
}
