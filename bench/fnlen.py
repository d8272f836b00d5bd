#!/usr/bin/env python3
"""Rust functions over N lines, and with P or more parameters (`self` not counted), under DIR.

usage: bench/fnlen.py DIR [N=150] [P=7]
Prints `LONG lines file line name` and `PARAMS count file line name`, then the counts. A rough reader:
comments, strings, raw strings and char literals are blanked, then each `fn`'s parameters and body are
found by bracket matching. `target/` folders are skipped."""
import os,re,sys
def strip(src):
    out=[];i=0;n=len(src)
    while i<n:
        c=src[i]
        if src.startswith('//',i):
            j=src.find('\n',i); j=n if j<0 else j; out.append(' '*(j-i)); i=j; continue
        if src.startswith('/*',i):
            j=src.find('*/',i+2); j=n if j<0 else j+2; out.append(re.sub(r'[^\n]',' ',src[i:j])); i=j; continue
        m=re.match(r'b?r(#*)"',src[i:i+10])
        if m and (i==0 or not (src[i-1].isalnum() or src[i-1]=='_')):
            end='"'+m.group(1); j=src.find(end,i+len(m.group(0))); j=n if j<0 else j+len(end)
            out.append(re.sub(r'[^\n]',' ',src[i:j])); i=j; continue
        if c=='"':
            j=i+1
            while j<n and src[j]!='"':
                j+= 2 if src[j]=='\\' else 1
            j+=1; out.append(re.sub(r'[^\n]',' ',src[i:j])); i=j; continue
        if c=="'":
            m=re.match(r"'(\\.[^']*|[^\\'])'",src[i:i+12])
            if m: out.append(' '*len(m.group(0))); i+=len(m.group(0)); continue
        out.append(c); i+=1
    return ''.join(out)
N=int(sys.argv[2]) if len(sys.argv)>2 else 150
P=int(sys.argv[3]) if len(sys.argv)>3 else 7
long=[];many=[]
for dp,dn,fn in os.walk(sys.argv[1]):
    if 'target' in dp: continue
    for f in fn:
        if not f.endswith('.rs'): continue
        p=os.path.join(dp,f); s=strip(open(p).read())
        for m in re.finditer(r'\bfn\s+(\w+)\s*(<[^>{]*>)?\s*\(',s):
            # params
            i=m.end(); depth=1; j=i
            while j<len(s) and depth:
                if s[j] in '([<': depth+= 1 if s[j]=='(' else 0
                if s[j]=='(': pass
                if s[j]==')': depth-=1
                j+=1
            params=s[i:j-1]
            # count top-level commas
            d=0;cnt=0;nonempty=params.strip()!=''
            for ch in params:
                if ch in '(<[{': d+=1
                elif ch in ')>]}': d-=1
                elif ch==',' and d==0: cnt+=1
            np=(cnt+1 if nonempty else 0)
            if params.strip().endswith(','): np-=1
            if re.match(r'\s*&?\s*(mut\s+)?(\'\w+\s+)?(mut\s+)?self\b',params): np-=1
            # body
            k=j
            while k<len(s) and s[k] not in '{;': k+=1
            if k>=len(s) or s[k]==';': continue
            d=0;e=k
            while e<len(s):
                if s[e]=='{': d+=1
                elif s[e]=='}':
                    d-=1
                    if d==0: break
                e+=1
            l0=s.count('\n',0,m.start())+1; l1=s.count('\n',0,e)+1
            L=l1-l0+1
            if L>N: long.append((L,p,l0,m.group(1)))
            if np>=P: many.append((np,p,l0,m.group(1)))
for x in sorted(long,reverse=True): print('LONG',*x)
for x in sorted(many,reverse=True): print('PARAMS',*x)
print(len(long),'long',len(many),'many-params')
