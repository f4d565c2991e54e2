import { dirname } from 'node:path';

/** Whether one folder holds the other (or is it): a folder and its subfolders are one unit here. */
const nested = (one: string, other: string): boolean =>
  one === other || one.startsWith(`${other}/`) || other.startsWith(`${one}/`);

/**
 * The file graph folded onto folders: one node per folder that holds production files, and an
 * edge from one folder to another when a file of the first imports a file of the second. Imports
 * between a folder and the folders inside it are left out: a subfolder is a part of its parent
 * (`composition/memory` of `composition`, every folder of a package's `src/`), and the parent's
 * files are where its parts meet. Imports between workspaces go through package names, ruled by
 * dependency-rules.test.ts, so no relative import crosses one.
 */
export function folderGraph(files: Map<string, string[]>): Map<string, string[]> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const folder = dirname(file);
    const edges = graph.get(folder) ?? new Set<string>();
    graph.set(folder, edges);
    for (const target of targets) if (!nested(folder, dirname(target))) edges.add(dirname(target));
  }
  return new Map([...graph].map(([folder, edges]) => [folder, [...edges].sort()]));
}
