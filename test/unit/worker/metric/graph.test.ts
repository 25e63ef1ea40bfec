import { describe, expect, it } from 'vitest';
import { graphDomain, graphDomainFromEdgeList, parseEdgeList } from '../../../../src-worker/metric/graph';
import { diameter, domainLabels } from '../../../../src-worker/metric/domain';
import { expectEdgesReproduceMetric, mechError } from '../../support/metric-helpers';

describe('graph domain (BFS shortest paths)', () => {
  it('computes path lengths on a small graph, Infinity between components', () => {
    // a-b-c-d path plus a-c chord, e-f separate component
    const g = graphDomain(
      ['a', 'b', 'c', 'd', 'e', 'f'],
      [
        [0, 1],
        [1, 2],
        [2, 3],
        [0, 2],
        [4, 5],
        [1, 0],
      ],
    );
    expect(g.n).toBe(6);
    expect(g.distance(0, 3)).toBe(2);
    expect(g.distance(1, 3)).toBe(2);
    expect(g.distance(0, 1)).toBe(1);
    expect(g.distance(3, 3)).toBe(0);
    expect(g.distance(0, 4)).toBe(Infinity);
    expect(g.distance(5, 4)).toBe(1);
    expect(g.structure.edges!.from.length).toBe(5); // duplicate (1,0) merged
    expect(diameter(g)).toBe(2);
    expectEdgesReproduceMetric(g);
  });

  it('a 7-cycle has ring distances and diameter 3', () => {
    const edges: [number, number][] = [];
    for (let i = 0; i < 7; i++) edges.push([i, (i + 1) % 7]);
    const g = graphDomain(['0', '1', '2', '3', '4', '5', '6'], edges);
    for (let i = 0; i < 7; i++)
      for (let j = 0; j < 7; j++) expect(g.distance(i, j)).toBe(Math.min(Math.abs(i - j), 7 - Math.abs(i - j)));
    expect(diameter(g)).toBe(3);
  });

  it('rejects self-loops, bad indices, duplicate labels and empty graphs', () => {
    expect(mechError(() => graphDomain(['a', 'b'], [[0, 0]]), 'invalid-input').message).toMatch(/self-loop on 'a'/);
    expect(mechError(() => graphDomain(['a', 'b'], [[0, 2]]), 'invalid-input').message).toMatch(
      /node index 2 is not in 0..1/,
    );
    expect(mechError(() => graphDomain(['a', 'a'], []), 'invalid-input').message).toMatch(/'a' appears twice/);
    mechError(() => graphDomain([], []), 'invalid-input');
  });

  it('refuses an all-pairs matrix over the dense limit', () => {
    const n = 12000; // 144M entries > 2^27
    const labels = Array.from({ length: n }, (_, i) => `n${i}`);
    expect(mechError(() => graphDomain(labels, [[0, 1]]), 'too-large').message).toMatch(/12000 x 12000/);
  });
});

describe('edge-list CSV', () => {
  it('parses a header, comments, blank lines and isolated nodes; labels in order of appearance', () => {
    const text = 'source,target\n# a comment\nparis,lyon\n\nlyon, nice\nbrest\nparis,nice\n';
    const e = parseEdgeList(text, 'fr.csv');
    expect(e.labels).toEqual(['paris', 'lyon', 'nice', 'brest']);
    expect(e.edges).toEqual([
      [0, 1],
      [1, 2],
      [0, 2],
    ]);
    const g = graphDomainFromEdgeList(text, 'fr.csv');
    expect(g.spec).toBe('graph:fr.csv');
    expect(domainLabels(g)).toEqual(['paris', 'lyon', 'nice', 'brest']);
    expect(g.distance(0, 2)).toBe(1);
    expect(g.distance(3, 0)).toBe(Infinity);
  });

  it('keeps a first row that is not a header as an edge', () => {
    expect(parseEdgeList('x,y\ny,z\n').edges).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('reports bad lines by number', () => {
    const refusal = (text: string) => mechError(() => parseEdgeList(text, 'g.csv'), 'invalid-input').message;
    const refusals: [text: string, message: string][] = [
      ['a,b\nb,c,d\n', "g.csv, line 2: expected 'a,b' (two node names), got 3 fields"],
      ['a,b\n\nc,c\n', 'g.csv, line 3: self-loop (both fields name the same node)'],
      ['a,b\n,c\n', 'g.csv, line 2: empty node name'],
      ['# nothing\n\n', 'g.csv: no edges or nodes found'],
      [`a,b\n${'x'.repeat(201)},c\n`, 'g.csv, line 2: a node name is longer than 200 characters'],
      ['a,b\nc\u0007,d\n', 'g.csv, line 2: a node name holds a control character'],
    ];
    for (const [text, message] of refusals) expect(refusal(text)).toBe(message);
    expect(refusal('a,"b\n')).toMatch(/g\.csv: malformed CSV at line 1/);
  });

  it('refuses a file that is not mostly edges (a key, a password file) as a whole, quoting none of it', () => {
    const key = [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      'QyNTUxOQAAACDbm4eTn3eHq2X7lbyeL3xfBBBW0jJtYt1Ht9z3KPiWgwAAAJgB8zKmAfMy',
      '-----END OPENSSH PRIVATE KEY-----',
    ].join('\n');
    // an encrypted PEM key has two lines with a comma: two "edges" among many single names
    const pem = [
      '-----BEGIN RSA PRIVATE KEY-----',
      'Proc-Type: 4,ENCRYPTED',
      'DEK-Info: AES-128-CBC,0A1B2C3D',
      '',
      'MIIEpAIBAAKCAQEA7',
      'q2X7lbyeL3xf',
      'BBBW0jJtYt1H',
    ].join('\n');
    const passwd = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n';
    for (const [text, edges, singles] of [
      [key, 0, 4],
      [pem, 2, 4],
      [passwd, 0, 2],
    ] as const) {
      const m = mechError(() => graphDomainFromEdgeList(text, 'k'), 'invalid-input').message;
      expect(m).toBe(
        `k: does not read as an edge list: ${edges} lines name an edge (two names) and ${singles} a single node (an edge list is one edge per line; a line with one name declares an isolated node beside the edges)`,
      );
    }
    // as many isolated nodes as edges is still an edge list
    expect(parseEdgeList('x,y\nz\n').labels).toEqual(['x', 'y', 'z']);
  });

  it('reads an edge list separated by spaces or tabs (networkx, SNAP: # comments), and says so', () => {
    const snap =
      '# Directed graph (each unordered pair of nodes is saved once): toy.txt\n# Nodes: 4 Edges: 4\n# FromNodeId\tToNodeId\n0\t1\n0\t2\n1\t2\n2\t3\n';
    const nx = '0 1 {}\n0 2 {}\n1  2\n 2 3\n';
    for (const text of [snap, nx]) {
      const e = parseEdgeList(text, 'toy.txt');
      expect(e.separator).toBe('whitespace');
      expect(e.labels).toEqual(['0', '1', '2', '3']);
      expect(e.edges).toEqual([
        [0, 1],
        [0, 2],
        [1, 2],
        [2, 3],
      ]);
      const g = graphDomainFromEdgeList(text, 'toy.txt');
      expect(g.description).toBe(
        'graph of 4 nodes and 4 edges (read as an edge list separated by whitespace), shortest-path distance',
      );
      expect(g.distance(0, 3)).toBe(2);
    }
    expect(parseEdgeList('x,y\ny,z\n').separator).toBe('comma');
    expect(graphDomainFromEdgeList('x,y\ny,z\n', 'g.csv').description).toBe(
      'graph of 3 nodes and 2 edges (read as an edge list separated by commas), shortest-path distance',
    );
    // a bad line of a whitespace edge list is named as such
    expect(mechError(() => parseEdgeList('0 1\n1 2\n2 3 4\n', 'g.txt'), 'invalid-input').message).toBe(
      "g.txt, line 3: expected 'a b' (two node names separated by whitespace), got 3 fields",
    );
  });

  it('refuses a two-column table that is not a graph: no node in two edges, or a name that is a measurement', () => {
    const accounts = 'user,password\nalice,hunter2\nbob,letmein\ncarol,s3cret\n';
    expect(mechError(() => parseEdgeList(accounts, 'accounts.csv'), 'invalid-input').message).toBe(
      'accounts.csv: does not read as a graph: its 4 edges share no node (every line pairs two names seen nowhere else), as the rows of a two-column table do',
    );
    const trace = 'time,watts\n0,120.5\n1,130\n2,120.5\n';
    expect(mechError(() => parseEdgeList(trace, 'trace.csv'), 'invalid-input').message).toBe(
      'trace.csv, line 2: a node name is a decimal number with a fraction or an exponent (a measurement, not a node); node names are words or whole numbers',
    );
    // a single edge, and edges that share nodes, are graphs
    expect(parseEdgeList('x,y\n').edges).toEqual([[0, 1]]);
    expect(parseEdgeList('1,2\n3,4\n2,3\n').labels).toEqual(['1', '2', '3', '4']);
  });
});
