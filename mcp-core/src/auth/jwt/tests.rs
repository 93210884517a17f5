use base64::engine::general_purpose::STANDARD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED, EcdsaKeyPair, UnparsedPublicKey};

use super::key::jwk_thumbprint;
use super::*;

/// RFC 8037 appendix A.1 and A.2: the Ed25519 private and public key.
const RFC8037_JWK: &str = r#"{"kty":"OKP","crv":"Ed25519",
    "d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
    "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#;

fn b64(text: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(text).unwrap()
}

fn claims_of(jwt: &str) -> (Map<String, Value>, Map<String, Value>) {
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3, "{jwt}");
    (
        serde_json::from_slice(&b64(parts[0])).unwrap(),
        serde_json::from_slice(&b64(parts[1])).unwrap(),
    )
}

fn verify_es256(jwt: &str, key: &SigningKey) {
    let jwk = key.public_jwk();
    let mut point = vec![4u8];
    point.extend(b64(jwk["x"].as_str().unwrap()));
    point.extend(b64(jwk["y"].as_str().unwrap()));
    let (input, signature) = jwt.rsplit_once('.').unwrap();
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
        .verify(input.as_bytes(), &b64(signature))
        .expect("the signature verifies with the public JWK");
}

#[test]
fn rfc8037_ed25519_signature_and_thumbprint() {
    let key = SigningKey::from_jwk(RFC8037_JWK).unwrap();
    assert_eq!(key.algorithm(), JwsAlgorithm::EdDsa);
    // A.4: the JWS of "Example of Ed25519 signing" (Ed25519 is deterministic).
    let input = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc";
    assert_eq!(
        URL_SAFE_NO_PAD.encode(key.sign(input.as_bytes()).unwrap()),
        "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
    );
    // A.3: the thumbprint of the public key.
    assert_eq!(
        key.thumbprint(),
        "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
    );
    assert_eq!(
        key.public_jwk()["x"],
        "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    );
}

#[test]
fn rfc7638_rsa_thumbprint() {
    let jwk: Map<String, Value> = serde_json::from_str(
        r#"{"kty":"RSA","alg":"RS256","kid":"2011-04-29","e":"AQAB",
        "n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}"#,
    )
    .unwrap();
    assert_eq!(
        jwk_thumbprint(&jwk),
        "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    );
}

#[test]
fn a_pkcs8_pem_key_signs_a_client_assertion_that_verifies() {
    let doc = EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &SystemRandom::new(),
    )
    .unwrap();
    let body = STANDARD.encode(doc.as_ref());
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        lines.join("\n")
    );
    let key = SigningKey::from_pem(&pem, None).unwrap();
    assert_eq!(key.algorithm(), JwsAlgorithm::Es256);
    let same = SigningKey::from_pem(&pem, Some(JwsAlgorithm::Es256)).unwrap();
    assert_eq!(key, same);

    let jwt = client_assertion(&key, "client-1", "https://as.example").unwrap();
    verify_es256(&jwt, &key);
    let (header, claims) = claims_of(&jwt);
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["typ"], "JWT");
    assert_eq!(claims["iss"], "client-1");
    assert_eq!(claims["sub"], "client-1");
    assert_eq!(claims["aud"], "https://as.example");
    let iat = claims["iat"].as_u64().unwrap();
    assert_eq!(claims["exp"].as_u64().unwrap(), iat + 60);
    assert!(iat.abs_diff(now_seconds()) < 5);
    let again = client_assertion(&key, "client-1", "https://as.example").unwrap();
    assert_ne!(
        claims["jti"],
        claims_of(&again).1["jti"],
        "a fresh jti each time"
    );
}

#[test]
fn generated_keys_carry_their_kid_and_public_jwk() {
    let key = SigningKey::generate(JwsAlgorithm::Es256)
        .unwrap()
        .with_key_id("k1");
    let mut header = Map::new();
    header.insert("jwk".into(), Value::Object(key.public_jwk()));
    let jwt = sign(&key, header, &Map::new()).unwrap();
    verify_es256(&jwt, &key);
    let (header, _) = claims_of(&jwt);
    assert_eq!(header["kid"], "k1");
    assert_eq!(header["jwk"]["crv"], "P-256");
    assert!(header["jwk"].get("d").is_none(), "no private member");
    assert_ne!(
        SigningKey::generate(JwsAlgorithm::Es256)
            .unwrap()
            .thumbprint(),
        key.thumbprint()
    );
    assert!(SigningKey::generate(JwsAlgorithm::Rs256).is_err());
}

#[test]
fn bad_keys_get_clear_errors() {
    let message = |r: Result<SigningKey>| r.unwrap_err().to_string();
    assert!(message(SigningKey::from_pem("hello", None)).contains("no `-----BEGIN`"));
    let sec1 = "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----";
    assert!(message(SigningKey::from_pem(sec1, None)).contains("PKCS#8"));
    let junk = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----";
    assert!(message(SigningKey::from_pem(junk, None)).contains("is not a PKCS#8"));
    let unclosed = "-----BEGIN PRIVATE KEY-----\nAAAA\n";
    assert!(message(SigningKey::from_pem(unclosed, None)).contains("-----END PRIVATE KEY-----"));
    assert!(message(SigningKey::from_jwk("[1]")).contains("not a JSON object"));
    assert!(message(SigningKey::from_jwk(r#"{"kty":"oct","k":"AA"}"#)).contains("unsupported JWK"));
    let with_alg = RFC8037_JWK.replace("\"kty\"", "\"alg\":\"ES256\",\"kty\"");
    assert!(message(SigningKey::from_jwk(&with_alg)).contains("cannot sign ES256"));
    let unknown_alg = RFC8037_JWK.replace("\"kty\"", "\"alg\":\"HS256\",\"kty\"");
    assert!(message(SigningKey::from_jwk(&unknown_alg)).contains("unsupported algorithm `HS256`"));
    let wrong_public = RFC8037_JWK.replace("11qYAY", "22qYAY");
    assert!(message(SigningKey::from_jwk(&wrong_public)).contains("not valid"));
}

#[test]
fn debug_never_shows_the_key() {
    let key = SigningKey::from_jwk(RFC8037_JWK).unwrap();
    let shown = format!("{key:?}");
    assert!(
        shown.contains("EdDsa") && !shown.contains("nWGxne"),
        "{shown}"
    );
}
