export declare const MAX_FILE_LINES: number;
export declare const MAX_FUNCTION_LINES: number;
export declare function oversized(repo: string, roots?: string[]): { files: { file: string; lines: number }[]; functions: { file: string; name: string; line: number; lines: number }[] };
