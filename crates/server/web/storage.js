// The browser's local storage, guarded: with site data blocked reading `localStorage` itself
// throws (SecurityError), and a full quota or a private window refuses writes
// (QuotaExceededError). The page works without it: a value storage refused is kept in memory
// and lasts as long as the page.

const memory = new Map();

export const storage = {
  /** The value kept under `key`, or null (none, or storage off and nothing kept this page). */
  get(key) {
    if (memory.has(key)) return memory.get(key);
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  /**
   * Keeps `value` under `key`: true when the browser stored it, false when storage refused it
   * (the value then lasts as long as the page).
   */
  set(key, value) {
    const text = String(value);
    try {
      localStorage.setItem(key, text);
      memory.delete(key);
      return true;
    } catch {
      memory.set(key, text);
      return false;
    }
  },
};
