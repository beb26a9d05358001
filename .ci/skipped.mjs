// Prints how many tests were skipped and why, from Vitest's JSON report (the reason is in the suite title).
import fs from 'node:fs';

const files = process.argv.length > 2 ? process.argv.slice(2) : ['.tmp/vitest-report.json'];
const reports = [];
for (const file of files) {
  if (fs.existsSync(file)) reports.push(JSON.parse(fs.readFileSync(file, 'utf8')));
  else console.log(`ci: no test report at ${file}`);
}
const report = {
  numPassedTests: reports.reduce((n, r) => n + (r.numPassedTests ?? 0), 0),
  numFailedTests: reports.reduce((n, r) => n + (r.numFailedTests ?? 0), 0),
  testResults: reports.flatMap((r) => r.testResults ?? []),
};
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
