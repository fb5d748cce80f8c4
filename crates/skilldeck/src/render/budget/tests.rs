use proptest::prelude::*;

use super::*;

#[test]
fn shorten_keeps_share_minus_one_characters_then_an_ellipsis() {
    assert_eq!(shorten("abcdef", 6), "abcdef");
    assert_eq!(shorten("abcdef", 7), "abcdef");
    assert_eq!(shorten("abcdef", WHOLE), "abcdef");
    assert_eq!(shorten("abcdef", 5), "abcd…");
    assert_eq!(shorten("abcdef", 1), "…");
    assert_eq!(shorten("", 1), "");
    assert_eq!(shorten("a", 1), "a");
    // Characters are scalar values, cut at their boundaries.
    assert_eq!(shorten("añoñez", 3), "añ…");
    assert_eq!(shorten("日本語のテキスト", 4), "日本語…");
    // Trailing whitespace before the cut goes.
    assert_eq!(shorten("one two three", 5), "one…");
    assert_eq!(shorten("one two three", 4), "one…");
    assert_eq!(shorten("one two three", 6), "one t…");
    assert!(matches!(shorten("whole", 5), Cow::Borrowed(_)));
}

#[test]
fn searches_find_the_largest_fitting_value() {
    for lo in [0, 1, 3] {
        for answer in lo..40 {
            for guess in 0..45 {
                let mut asked = Vec::new();
                let found = largest_from(lo, guess, 40, |k| {
                    asked.push(k);
                    k <= answer
                });
                assert_eq!(found, answer, "lo {lo}, guess {guess}");
                assert!(asked.iter().all(|&k| lo < k && k < 40), "{asked:?}");
            }
            assert_eq!(bisect(lo, 40, |k| k <= answer), answer);
        }
    }
    assert_eq!(largest_from(5, 9, 6, |_| unreachable!("nothing to ask")), 5);
    // A right guess costs two questions.
    let mut asked = 0;
    assert_eq!(
        largest_from(0, 1000, 1_000_000, |k| {
            asked += 1;
            k <= 1000
        }),
        1000
    );
    assert_eq!(asked, 2);
}

#[test]
fn budgets_parse_and_display() {
    assert_eq!("8000c".parse(), Ok(Budget::chars(8000)));
    assert_eq!("0c".parse(), Ok(Budget::chars(0)));
    assert_eq!(Budget::chars(8000).to_string(), "8000c");
    for bad in ["", "c", "8000", "8000x", "-1c", "8000 c", " 8000c", "8000C", "1e3c", "99999999999999999999999c"] {
        assert_eq!(bad.parse::<Budget>(), Err(ParseBudgetError::Syntax(bad.to_owned())), "{bad:?}");
    }
    #[cfg(feature = "tokens")]
    {
        assert_eq!("2000t".parse(), Ok(Budget::tokens(2000, Encoding::O200k)));
        assert_eq!("2000t:o200k".parse(), Ok(Budget::tokens(2000, Encoding::O200k)));
        assert_eq!("2000t:cl100k".parse(), Ok(Budget::tokens(2000, Encoding::Cl100k)));
        assert_eq!("2000t:p50k".parse::<Budget>(), Err(ParseBudgetError::Encoding("p50k".into())));
        assert_eq!("2000t:".parse::<Budget>(), Err(ParseBudgetError::Encoding("".into())));
        assert_eq!(Budget::tokens(2000, Encoding::O200k).to_string(), "2000t:o200k");
    }
    #[cfg(not(feature = "tokens"))]
    assert_eq!("2000t".parse::<Budget>(), Err(ParseBudgetError::NoTokens));
}

/// Counts checked against tiktoken-rs 0.12.1 (`encode_ordinary(…).len()`),
/// which agreed with bpe-openai on these and on 2,000 random strings.
#[cfg(feature = "tokens")]
#[test]
fn token_counts_are_openais() {
    let o200k = Budget::tokens(0, Encoding::O200k);
    let cl100k = Budget::tokens(0, Encoding::Cl100k);
    assert_eq!(bpe_openai::o200k_base().encode("hello world"), [24912, 2375]);
    assert_eq!(bpe_openai::cl100k_base().encode("hello world"), [15339, 1917]);
    for (text, o, c) in [
        ("tiktoken is great!", 6, 6),
        ("<available_skills>\n<skill>\n<name>\nx &amp; y\n</name>", 20, 19),
        ("Handles task number 42 of the benchmark; use it when the user asks for task 42.", 20, 20),
        ("o cardápio do dia — com ção e naïve 日本語 🎉…", 18, 21),
        ("- **alpha**: First.\n- **zeta**: Last…", 15, 13),
    ] {
        assert_eq!((o200k.measure(text), cl100k.measure(text)), (o, c), "{text:?}");
    }
}

proptest! {
    #[test]
    fn shortened_descriptions_respect_their_share(description in "\\PC{0,30}", share in 1usize..35) {
        let shown = shorten(&description, share);
        let n = description.chars().count();
        prop_assert!(shown.chars().count() <= share.max(n.min(share)));
        if n <= share {
            prop_assert_eq!(shown.as_ref(), description.as_str());
        } else {
            let kept = shown.strip_suffix('…').expect("an ellipsis");
            prop_assert!(description.starts_with(kept));
            prop_assert!(kept.chars().count() < share);
        }
    }
}
