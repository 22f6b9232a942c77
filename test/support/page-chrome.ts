/**
 * Blocks of a page's chrome, each with words that must never reach its main content (the
 * BOILERPLATE_WORDS): what the main-content specs surround an article with, wherever it sits.
 */
export const CHROME_BLOCKS = [
  '<nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About us</a></nav>',
  '<header class="site-header"><a href="/">Tea Times</a> <a href="/login">Sign in</a></header>',
  '<footer><p>Copyright Tea Times, all rights reserved in every land.</p><a href="/imprint">Imprint</a></footer>',
  '<aside><h3>Popular now</h3><p>Seven teapots ranked by a panel of experts.</p></aside>',
  '<div id="cookie-banner"><p>We use cookies to improve the experience of this site.</p><button>Accept</button></div>',
  '<div class="share-bar"><a href="/s/x">Share on X</a> <a href="/s/f">Share on Facebook</a></div>',
  '<ul class="menu"><li><a href="/a">Black</a></li><li><a href="/b">Oolong</a></li><li><a href="/c">White</a></li><li><a href="/d">Herbal</a></li></ul>',
  '<div class="newsletter-signup"><p>Subscribe to our newsletter for a weekly cup of news.</p></div>',
];
export const BOILERPLATE_WORDS = /Home|Sign in|Copyright|Seven teapots|cookies|Share on|Oolong|Subscribe/;
