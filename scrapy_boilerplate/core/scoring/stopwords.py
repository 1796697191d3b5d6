"""A merged stoplist of frequent function words in common European languages.

Stopword density tells running prose from navigation and labels (jusText);
a merged list keeps it usable without knowing the page's language, as
trafilatura does for its jusText fallback.
"""

STOPWORDS = frozenset(
    """
a about after all also an and any are as at be because been but by can could did do does
for from had has have he her his how i if in into is it its just more most my no not of on
one or our out so some such than that the their them then there these they this to up was
we were what when which who will with would you your
aber als am an auch auf aus bei bin bis da damit dann das dass dem den der des die dies
doch du durch ein eine einem einen einer eines er es für hat hatte ich ihr im in ist ja
kann mit nach nicht noch nur ob oder sich sie sind so um und uns von vor war was wenn
werden wie wir wird zu zum zur über
au aux avec ce ces dans de des du elle en est et il ils je la le les leur lui mais me même
mon ne nous on ou par pas pour qu que qui sa se ses son sur ta te toi ton tu un une vous
al como con cuando del el ella ellos en entre era es esta este fue ha hay la las le les lo
los más muy no nos o para pero por que se ser si sin sobre su sus también un una uno y ya
che ci come con da dei della delle di e gli ha il in io la le lo ma mi nel non per più se
si sono su tra un una uno
ao as com da das de do dos ela ele em entre era essa este foi há isso mais mas na nas no
nos não os para pela pelo por quando que se sem ser seu sua são também um uma
aan als bij dat de den der die dit door een en er het hij hoe in is je kan met naar niet
nog of om ook op over te tot uit van voor was wat wel worden zich zij zijn
""".split()
)
