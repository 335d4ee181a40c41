import { Database, entitiesById } from '../../../src/graph';
import {
  losslessPropertyPairs,
  plainProperties,
  propertiesFromPairs,
} from '../../../src/graph/plain-value';
import { testDatabase, uniqueId } from '../../support/test-database';

describe('entity properties keep integers past 2^53', () => {
  const id = uniqueId('big');
  let db: Database;
  beforeAll(async () => {
    db = testDatabase();
    await db.write((tx) =>
      tx.run(
        `CREATE (:Entity {id: $id, big: 9007199254740993, min: -9223372036854775808,
          max: 9223372036854775807, edge: 9007199254740991, small: 42, ratio: 1.5, name: 'x',
          list: [1, 9007199254740993, -9007199254740993], born: date('2001-02-03')})`,
        { id },
      ),
    );
  });
  afterAll(async () => {
    await db.write((tx) => tx.run('MATCH (e:Entity {id: $id}) DELETE e', { id }));
    await db.close();
  });

  const read = async (projection: string) =>
    (
      await db.read((tx) => tx.run(`MATCH (e:Entity {id: $id}) RETURN ${projection} AS p`, { id }))
    ).records[0]?.get('p');

  it('properties(e) through the driver loses them (the fault: Infinity)', async () => {
    const plain = plainProperties(await read('properties(e)'));
    expect(plain.big).toBe(Infinity);
  });

  it('losslessPropertyPairs gives them as exact decimal strings; the rest unchanged', async () => {
    const props = propertiesFromPairs(await read(losslessPropertyPairs('e')));
    expect(props).toEqual({
      id,
      big: '9007199254740993',
      min: '-9223372036854775808',
      max: '9223372036854775807',
      edge: 9007199254740991,
      small: 42,
      ratio: 1.5,
      name: 'x',
      list: [1, '9007199254740993', '-9007199254740993'],
      born: '2001-02-03',
    });
    // JSON carries them intact.
    expect(JSON.parse(JSON.stringify(props)).big).toBe('9007199254740993');
  });

  it('entitiesById (what the API answers) keeps them exactly', async () => {
    const entity = (await entitiesById(db, [id])).get(id);
    expect(entity?.properties).toMatchObject({
      big: '9007199254740993',
      max: '9223372036854775807',
      edge: 9007199254740991,
      list: [1, '9007199254740993', '-9007199254740993'],
    });
    expect(entity?.properties.id).toBeUndefined();
  });
});
