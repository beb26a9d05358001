// The Obsidian host: lifecycle only. Views, commands and adapters join as their issues land.
import { Plugin } from 'obsidian';

interface EngramSettings {
  /** The state directory the sidecar uses ($ENGRAM_HOME); shown so `engram doctor` can compare. */
  engramHome: string;
}

const DEFAULT_SETTINGS: EngramSettings = { engramHome: '' };

export default class EngramPlugin extends Plugin {
  settings: EngramSettings = { ...DEFAULT_SETTINGS };

  async onload(): Promise<void> {
    this.settings = Object.assign({}, DEFAULT_SETTINGS, (await this.loadData()) as Partial<EngramSettings> | null);
    const status = this.addStatusBarItem();
    status.addClass('engram-status');
    status.setText('Engram');
  }
}
