// Common English short forms of given names (Bob for Robert, Liz for Elizabeth), for name matching.
//
// No nickname data set is published on npm (checked: `nicknames` and `nickname` generate nicknames;
// `name-match` is fuzzy string distance; `parse-full-name` only reads a quoted nickname), so this list
// is kept here: each line is a formal name followed by its usual short forms, in lower case without
// accents. A name in two lines (Bill: William, Robert is not in it) is a short form of both.

const LINES = `
abigail abby abbie gail
albert al bert bertie
alexander alex al sandy xander
alexandra alex sandy sandra lexi
alfred alf alfie fred freddie
allison ali allie
amanda mandy manda
andrew andy drew
angela angie
anthony tony ant
antonia toni
arthur art artie
barbara barb babs
benjamin ben benny benji
bernard bernie
beverley bev
bradley brad
bridget bridie
calvin cal
cameron cam
caroline carol carrie caro
catherine cathy cath kate katie kat
katherine kathy kath kate katie kat
kathleen kathy kath kate
charles charlie chuck chas
charlotte charlie lottie
christina chris tina
christine chris chrissy
christopher chris kit topher
clifford cliff
cynthia cindy
daniel dan danny
david dave davy
deborah deb debbie
dennis den
donald don donnie
dorothy dot dottie
douglas doug
edward ed eddie ted teddy ned
edwin ed eddie
eleanor ellie nell nora
elizabeth liz lizzie beth betty bess eliza libby lisa
emily em emmy
eugene gene
frances fran frankie
francis frank fran
frederick fred freddie
gabriel gabe
gabrielle gabby gabi
geoffrey geoff jeff
jeffrey jeff
gerald gerry jerry
gregory greg
harold harry hal
henry harry hank hal
isabella bella izzy isabel
jacob jake
james jim jimmy jamie
janet jan
jennifer jen jenny
jessica jess jessie
john jack johnny
jonathan jon jonny
joseph joe joey
joshua josh
judith judy
julia jules
kenneth ken kenny
kimberley kim
lawrence larry laurie
leonard len lenny leo
louise lou
lucy lu
margaret maggie meg peggy marge madge greta
matthew matt matty
megan meg
melissa mel missy
michael mike mick mikey mickey
michelle shelly
nathan nate nat
nathaniel nate nat
nicholas nick nicky
nicola nicky nikki
pamela pam
patricia pat patty trish tricia
patrick pat paddy
peter pete
philip phil pip
phillip phil
rebecca becky becca
richard rick ricky dick rich
robert bob bobby rob robbie bert
ronald ron ronnie
rosemary rose rosie
samantha sam sammy
samuel sam sammy
sandra sandy
sarah sal sally
stephen steve stevie
steven steve stevie
stephanie steph
susan sue susie
suzanne sue suzie
theodore theo ted teddy
thomas tom tommy
timothy tim timmy
valerie val
victoria vicky tori
vincent vince vinny
walter walt wally
william bill billy will willie liam
zachary zach zack
`;

/** Each name (formal or short) → the numbers of the lines it is on. */
const GROUPS = new Map<string, number[]>();
LINES.trim()
  .split('\n')
  .forEach((line, group) => {
    for (const name of line.split(' ')) {
      const groups = GROUPS.get(name);
      if (groups === undefined) GROUPS.set(name, [group]);
      else if (!groups.includes(group)) groups.push(group);
    }
  });

/**
 * True when two different folded given names are one a short form of the other, or both short forms of
 * one formal name (Bob and Rob, both Robert).
 * @example sameNameShortened('bob', 'robert') // true
 */
export function sameNameShortened(a: string, b: string): boolean {
  const groupsOfA = GROUPS.get(a);
  if (groupsOfA === undefined) return false;
  const groupsOfB = GROUPS.get(b);
  return groupsOfB !== undefined && groupsOfA.some((group) => groupsOfB.includes(group));
}
