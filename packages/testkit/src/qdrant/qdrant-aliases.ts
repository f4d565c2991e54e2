import { QdrantInputError } from './qdrant-filter.ts';

/**
 * Collection aliases as Qdrant keeps them: an alias names one collection, every collection call
 * accepts it in place of the name, and a batch of alias actions applies all or nothing. An alias
 * may not share a name with a collection, and deleting a collection drops its aliases.
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

  /** `POST /collections/aliases`: validated on a copy, then applied at once. */
  apply(body: Record<string, unknown>, collectionExists: (name: string) => boolean): void {
    if (!Array.isArray(body.actions))
      throw new QdrantInputError('Format error in JSON body: missing field `actions`');
    const next = new Map(this.#aliases);
    for (const action of body.actions as Array<Record<string, Record<string, string> | undefined>>) {
      if (action.create_alias) {
        const { alias_name: alias, collection_name: collection } = action.create_alias;
        if (!alias || !collection) throw new QdrantInputError('Format error in JSON body: create_alias');
        if (collectionExists(alias))
          throw new QdrantInputError(`Wrong input: Collection \`${alias}\` already exists!`);
        if (!collectionExists(collection))
          throw new QdrantInputError(`Not found: Collection \`${collection}\` doesn't exist!`);
        next.set(alias, collection);
      } else if (action.delete_alias) {
        const alias = action.delete_alias.alias_name ?? '';
        if (!next.delete(alias)) throw new QdrantInputError(`Not found: Alias \`${alias}\` doesn't exist!`);
      } else if (action.rename_alias) {
        const { old_alias_name: from, new_alias_name: to } = action.rename_alias;
        const target = next.get(from ?? '');
        if (!target || !to) throw new QdrantInputError(`Not found: Alias \`${from}\` doesn't exist!`);
        next.delete(from ?? '');
        next.set(to, target);
      } else {
        throw new QdrantInputError('Format error in JSON body: unknown alias action');
      }
    }
    this.#aliases.clear();
    for (const [alias, collection] of next) this.#aliases.set(alias, collection);
  }
}
