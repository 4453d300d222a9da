# Draws this sample (SOURCE.md). Run from this folder with the upstream wheel unpacked into bfcl_eval-unpacked/.
import json, random
D='bfcl_eval-unpacked/bfcl_eval/data/'
q=[l for l in open(D+'BFCL_v4_live_multiple.json').read().split('\n') if l.strip()]
a=[l for l in open(D+'possible_answer/BFCL_v4_live_multiple.json').read().split('\n') if l.strip()]
assert len(q)==len(a)==1053
used={json.loads(l)['id'] for l in open('../bfcl-live-multiple/BFCL_v4_live_multiple.fresh60.jsonl') if l.strip()}
def question(s):
    turn=s['question'][0] if s['question'] else []
    for m in reversed(turn):
        if m['role']=='user': return m['content']
    return ''
elig=[]
for i,l in enumerate(q):
    s=json.loads(l); assert json.loads(a[i])['id']==s['id']
    if s['id'] in used: continue
    if len(s['function'])<=5 and len(question(s))<=4000: elig.append(i)
print(len(elig), 'eligible')
pick=sorted(random.Random(20261209).sample(elig,150))
O=''
open(O+'BFCL_v4_live_multiple.fresh150.jsonl','w').write(''.join(q[i]+'\n' for i in pick))
open(O+'possible_answer/BFCL_v4_live_multiple.fresh150.jsonl','w').write(''.join(a[i]+'\n' for i in pick))
