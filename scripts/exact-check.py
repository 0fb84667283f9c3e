#!/usr/bin/env python3
"""Who played below the exact value in a tournament.

For every game of `pussa tournament --results FILE.json`, the position after the random opening
is solved exactly (`pussa egtb solve`, tables under EGTB_DIR) and its exact final margin
(South minus North, stores included) is compared with the game's final margin: a lower final
means South gave value away, a higher one North.

Usage: scripts/exact-check.py RESULTS.json GAME EGTB_DIR [PUSSA_BINARY]
"""
import json, subprocess, sys

res, game, egtb = sys.argv[1], sys.argv[2], sys.argv[3]
P = sys.argv[4] if len(sys.argv) > 4 else 'target/release/pussa'
d = json.load(open(res))
cache = {}
p1 = d['players'][0] if 'players' in d else 'player1'
dev = {0: 0, 1: 0}
for g in d['games']:
    op = ' '.join(g['opening'])
    if op not in cache:
        out = subprocess.run([P, 'replay', '--game', game, '--moves', op, '--json'], capture_output=True, text=True).stdout.strip().splitlines()[-1]
        j = json.loads(out)
        b = j['board']
        pos = ','.join(map(str, b[:7])) + '/' + ','.join(map(str, b[7:])) + ' %d %d %s 1 %s' % (j['stores'][0], j['stores'][1], j['to_move'], game)
        s = subprocess.run([P, 'egtb', 'solve', '--game', game, '--position', pos, '--dir', egtb], capture_output=True, text=True).stdout
        line = [l for l in s.splitlines() if l.startswith('the position')][0]
        v = int(line.split('value ')[1].split()[0])
        who = line.split('for ')[1].split()[0]
        fut = v if who == 'South' else -v
        cache[op] = fut + j['stores'][0] - j['stores'][1]
    exact = cache[op]
    final = g['stores'][0] - g['stores'][1]
    south = g['south_player']
    # Who deviated from the exact value: a lower final than exact = South erred, higher = North erred.
    if final < exact: dev[south] += 1
    if final > exact: dev[1 - south] += 1
    print(g['index'], 'south=P%d' % (south + 1), 'exact', exact, 'final', final, '' if final == exact else ('<- South (P%d) lost value' % (south + 1) if final < exact else '<- North (P%d) lost value' % (2 - south)))
print('games where player 1 lost value:', dev[0], ' player 2:', dev[1])
