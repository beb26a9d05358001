// How the plugin's long work gives Obsidian's UI a turn: scheduler.yield where Chromium has it, else one message turn
// (setTimeout's 4 ms clamp on nested timers would slow a long index by seconds).
import type { Yield } from '../../core/ports';

export const yieldToUi: Yield = () => {
  // globalThis, not window: the plugin host also runs in plain Node (its handover tests), where there is no window.
  const s = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (s?.yield) return s.yield();
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
};
