import type { BuildOptions } from 'esbuild';

export declare const commandsBuild: BuildOptions;
export declare const serverBuild: BuildOptions;
