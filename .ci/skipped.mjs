// Prints how many tests were skipped and why, from Vitest's JSON report (the reason is in the suite title).
import fs from 'node:fs';

const file = process.argv[2] ?? '.tmp/vitest-report.json';
if (!fs.existsSync(file)) {
  console.log(`ci: no test report at ${file}`);
  process.exit(0);
}
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = [];
for (const suite of report.testResults ?? []) {
  for (const t of suite.assertionResults ?? []) {
    if (t.status === 'skipped' || t.status === 'pending' || t.status === 'todo') {
      skipped.push({ file: suite.name.replace(process.cwd() + '/', ''), suite: (t.ancestorTitles ?? []).join(' > ') || t.title });
    }
  }
}
console.log(`ci: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped.length} skipped`);
const reasons = new Map();
for (const s of skipped) {
  const key = `${s.file}: ${s.suite}`;
  reasons.set(key, (reasons.get(key) ?? 0) + 1);
}
for (const [reason, n] of reasons) console.log(`  skipped ${n}: ${reason}`);
