import { QdrantInputError } from './qdrant-filter.ts';
import { QdrantConflictError, QdrantNotFoundError } from './qdrant-status-errors.ts';

/**
 * Collection aliases as Qdrant keeps them: an alias names one collection, every collection call
 * accepts it in place of the name. An alias may not share a name with a collection, and deleting
 * a collection drops its aliases.
 */
export class StandInAliases {
  readonly #aliases = new Map<string, string>();

  resolve(name: string): string {
    return this.#aliases.get(name) ?? name;
  }

  has(name: string): boolean {
    return this.#aliases.has(name);
  }

  list(): Array<{ alias_name: string; collection_name: string }> {
    return [...this.#aliases].map(([alias, collection]) => ({
      alias_name: alias,
      collection_name: collection,
    }));
  }

  /** Drops the aliases of a deleted collection. */
  forget(collection: string): void {
    for (const [alias, target] of this.#aliases) if (target === collection) this.#aliases.delete(alias);
  }

  /**
   * `POST /collections/aliases`: the actions run one by one, as the server's `update_aliases`
   * does; the first that fails ends the call with its status and the ones before it stay done.
   * Creating an alias over an existing one re-points it; deleting a missing alias is not an error.
   */
  apply(body: Record<string, unknown>, collectionExists: (name: string) => boolean): void {
    if (!Array.isArray(body.actions))
      throw new QdrantInputError('Format error in JSON body: missing field `actions`');
    for (const action of body.actions as Array<Record<string, Record<string, string> | undefined>>) {
      if (action.create_alias) {
        const { alias_name: alias, collection_name: collection } = action.create_alias;
        if (!alias || !collection) throw new QdrantInputError('Format error in JSON body: create_alias');
        if (!collectionExists(collection))
          throw new QdrantNotFoundError(`Not found: Collection \`${collection}\` doesn't exist!`);
        if (collectionExists(alias))
          throw new QdrantConflictError(`Wrong input: Collection \`${alias}\` already exists!`);
        this.#aliases.set(alias, collection);
      } else if (action.delete_alias) {
        this.#aliases.delete(action.delete_alias.alias_name ?? '');
      } else if (action.rename_alias) {
        const { old_alias_name: from, new_alias_name: to } = action.rename_alias;
        if (!to) throw new QdrantInputError('Format error in JSON body: rename_alias');
        const target = this.#aliases.get(from ?? '');
        if (!target) throw new QdrantNotFoundError(`Not found: Alias ${from} does not exists!`);
        this.#aliases.delete(from ?? '');
        this.#aliases.set(to, target);
      } else {
        throw new QdrantInputError('Format error in JSON body: unknown alias action');
      }
    }
  }
}
