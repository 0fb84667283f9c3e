#!/usr/bin/env python3
"""Who threw away a won match in a tournament of matches.

Every match state (South's holding, who starts the round) has an exact verdict under perfect
match play (`pussa egtb match --states --exhaustive`, docs/solved.md "Matches"). For every match
of `pussa tournament --match --results FILE.json`, each round from the second on starts in such
a state; when a round starts won for a player and the next starts not won for them (or the
match ends otherwise), that player threw the win away in that round (or, if the match reached the tournament's round
limit, was held to a draw). Round 1 (the random opening) is not judged.

Usage: scripts/match-check.py RESULTS.json STATES.txt GAME [PUSSA_BINARY]
  STATES.txt: the output of `pussa egtb match --game GAME --states --exhaustive ...`
"""
import json, re, subprocess, sys

res, states, game = sys.argv[1], sys.argv[2], sys.argv[3]
P = sys.argv[4] if len(sys.argv) > 4 else 'target/release/pussa'
verdict = {}
# The exact verdicts ("S holds 40, North starts: Win { side: South, rounds: 8 }"); a state
# that no player can force to a win is endless.
pat = re.compile(r'S holds +(\d+), (South|North) starts: (?:Win \{ side: (South|North)|(\w+))')
for line in open(states):
    m = pat.search(line)
    if m:
        verdict[(int(m.group(1)), m.group(2)[0])] = m.group(3) or 'endless'
if not verdict:
    sys.exit(f'{states}: no match states found')
d = json.load(open(res))
names = d.get('players', ['player 1', 'player 2'])
threw = [0, 0]
held_off = [0, 0]
won_from_lost = [0, 0]
judged = 0
for g in d['games']:
    out = subprocess.run([P, 'replay', '--game', game, '--match', '--moves', ' '.join(g['moves']), '--json'],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [json.loads(l) for l in out]
    starts, seen = [], set()
    for r in rows:
        if r['round'] >= 2 and r['round'] not in seen and not r['round_over']:
            seen.add(r['round'])
            held = r['stores'][0] + sum(r['board'][:7])
            starts.append((r['round'], verdict.get((held, r['to_move']), '?')))
    if not starts:
        continue
    judged += 1
    south = g['south_player']
    player = {'South': south, 'North': 1 - south}
    final = g['winner'] or 'none'  # 'South', 'North' or None (a draw)
    notes = []
    for (r, v), nxt in zip(starts, starts[1:] + [(None, final)]):
        if v in ('South', 'North') and nxt[1] != v:
            if nxt[0] is None and final == 'none':
                held_off[player[v]] += 1
                notes.append(f'{v} ({names[player[v]]}) had it won and was held to the round limit')
            else:
                threw[player[v]] += 1
                notes.append(f'{v} ({names[player[v]]}) threw the win away in round {r}')
            break
    first = starts[0][1]
    if first in ('South', 'North') and final not in (first, 'none'):
        won_from_lost[player[final]] += 1
    print(g['index'], f"S={names[south]}", 'round 2:', first, 'winner:', final, '; '.join(notes))
print(f'{judged} matches judged; won matches thrown away: {names[0]} {threw[0]}, {names[1]} {threw[1]};'
      f' won matches drawn at the round limit: {names[0]} {held_off[0]}, {names[1]} {held_off[1]};'
      f' matches won from a lost round 2: {names[0]} {won_from_lost[0]}, {names[1]} {won_from_lost[1]}')
