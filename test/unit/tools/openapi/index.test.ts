import { describe, expect, it } from 'vitest';
import { createRegistry, registryDefaults } from '../../../../src/registry/registry.js';
import { configFrom } from '../../../../src/config/load.js';
import { toolNameOf } from '../../../../src/tools/openapi/index.js';
import { load } from './helpers.js';

const PETSTORE_TOOLS = [
  'addPet', 'createUser', 'createUsersWithArrayInput', 'createUsersWithListInput', 'deleteOrder', 'deletePet', 'deleteUser',
  'findPetsByStatus', 'findPetsByTags', 'getInventory', 'getOrderById', 'getPetById', 'getUserByName', 'loginUser',
  'logoutUser', 'placeOrder', 'updatePet', 'updatePetWithForm', 'updateUser',
];

describe.each(['petstore-3.0.json', 'petstore-3.1.json'])('the Petstore fixture %s', (file) => {
  it('parses: 19 of its 20 operations become tools named by operationId (the form body too); the file upload is listed', async () => {
    const { tools, skipped, problems } = await load([{ name: 'pets', spec: file }]);
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name).sort()).toEqual(PETSTORE_TOOLS);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(/^openapi_sources\.pets: uploadFile \(POST \/pet\/\{petId\}\/uploadImage\): (its request body is application\/octet-stream|its multipart body has file fields \(file\))/);
  });

  it('gives each tool its schema: path, query and header parameters and the $ref-ed JSON body merged', async () => {
    const { tools } = await load([{ name: 'pets', spec: file }]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('getPetById')!.parameters).toEqual({
      type: 'object',
      properties: { petId: { type: 'integer', format: 'int64', description: 'ID of pet to return' } },
      required: ['petId'],
      additionalProperties: false,
    });
    expect(byName.get('deletePet')!.parameters).toMatchObject({
      properties: { petId: { type: 'integer' }, api_key: { type: 'string' } },
      required: ['petId'],
    });
    expect(byName.get('findPetsByStatus')!.parameters).toMatchObject({
      properties: { status: { type: 'array', items: { type: 'string', enum: ['available', 'pending', 'sold'] } } },
      required: ['status'],
    });
    const addPet = byName.get('addPet')!;
    expect(Object.keys(addPet.parameters.properties as object)).toEqual(['category', 'name', 'photoUrls', 'tags', 'status']);
    expect(addPet.parameters.required).toEqual(['name', 'photoUrls']);
    expect(addPet.description).toBe('Add a new pet to the store');
    // The body's array schema is one argument of its own.
    expect(byName.get('createUsersWithArrayInput')!.parameters).toMatchObject({ properties: { body: { type: 'array' } }, required: ['body'] });
  });

  it('marks GET operations concurrency-safe and the others not', async () => {
    const { tools } = await load([{ name: 'pets', spec: file }]);
    const safe = tools.filter((t) => t.concurrencySafe).map((t) => t.name).sort();
    expect(safe).toEqual(['findPetsByStatus', 'findPetsByTags', 'getInventory', 'getOrderById', 'getPetById', 'getUserByName', 'loginUser', 'logoutUser']);
  });
});

describe('the large fixture (GitHub Enterprise Server 3.0, 674 operations)', () => {
  it('parses: 672 tools, the 2 operations with bodies neither JSON nor form listed, every name one a provider accepts', async () => {
    const { tools, skipped, problems } = await load([{ name: 'github', spec: 'large.json', prefix: 'gh_', base_url: 'https://ghe.example.com/api/v3' }]);
    expect(problems).toEqual([]);
    expect(tools).toHaveLength(672);
    expect(skipped).toHaveLength(2);
    expect(skipped.every((line) => /its request body is (text\/plain, text\/x-markdown|\*\/\*); only/.test(line))).toBe(true);
    expect(tools.every((t) => /^[A-Za-z0-9_-]{1,64}$/.test(t.name))).toBe(true);
    expect(new Set(tools.map((t) => t.name)).size).toBe(672);
    // The validators compile: the registry accepts every schema.
    expect(createRegistry(tools, registryDefaults(configFrom())).list()).toHaveLength(672);
  });

  it('sanitizes operationIds (/ → _) and shortens those over 64 characters with a hash of the full name', async () => {
    const { tools } = await load([{ name: 'github', spec: 'large.json', prefix: 'gh_', base_url: 'https://ghe.example.com/api/v3' }]);
    const names = tools.map((t) => t.name);
    expect(names).toContain('gh_repos_get-content');
    expect(names).toContain('gh_pulls_create');
    // 22 operationIds are over 64 characters with the prefix: each keeps 55 and gets 8 hex digits.
    const hashed = names.filter((n) => n.length === 64 && /_[0-9a-f]{8}$/.test(n));
    expect(hashed).toHaveLength(22);
    const long = toolNameOf('gh_', 'enterprise-admin/get-download-status-for-pre-receive-environment');
    expect(long).toMatch(/^gh_enterprise-admin_get-download-status-for-pre-receive_[0-9a-f]{8}$/);
    expect(names).toContain(long);
    const create = tools.find((t) => t.name === 'gh_pulls_create')!;
    expect(create.parameters).toMatchObject({ properties: { owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string' }, head: { type: 'string' } }, required: ['owner', 'repo', 'base', 'head'] });
    expect(create.concurrencySafe).toBe(false);
  });

  it('include selects operations by operationId glob', async () => {
    const { tools } = await load([{ name: 'github', spec: 'large.json', include: ['pulls/*'], base_url: 'https://ghe.example.com/api/v3' }]);
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((t) => t.name.startsWith('pulls_'))).toBe(true);
  });
});
