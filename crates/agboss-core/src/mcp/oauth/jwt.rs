//! OAuth's client-credentials grant with a signed JWT assertion (`private_key_jwt`, RFC 7523
//! as MCP's client-credentials extension uses it): the client proves itself with a short-lived
//! JWT signed by its private key instead of a secret. The key is a PKCS#8 PEM (`BEGIN PRIVATE
//! KEY`), P-256 (signed ES256) or RSA (signed RS256); the JWT names the client as `iss` and
//! `sub`, the authorization server's issuer as `aud`, and lives 5 minutes.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, RsaKeyPair};
use rustls::pki_types::PrivatePkcs8KeyDer;
use rustls::pki_types::pem::PemObject;

/// How long an assertion is good for.
const LIFETIME_SECS: u64 = 300;

/// A client's private key, read from its PEM.
pub(crate) enum SigningKey {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

impl SigningKey {
    /// The key of `pem` (PKCS#8), P-256 or RSA; why not, without the key.
    pub(crate) fn from_pem(pem: &str) -> Result<SigningKey, String> {
        let der = PrivatePkcs8KeyDer::from_pem_slice(pem.as_bytes()).map_err(|e| {
            format!("the private key is not a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): {e}")
        })?;
        let rng = SystemRandom::new();
        let der = der.secret_pkcs8_der();
        if let Ok(key) =
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng)
        {
            return Ok(SigningKey::Es256(key));
        }
        RsaKeyPair::from_pkcs8(der)
            .map(SigningKey::Rs256)
            .map_err(|_| {
                "the private key is neither a P-256 key (ES256) nor an RSA key (RS256)".to_owned()
            })
    }

    /// The JWS algorithm it signs with.
    pub(crate) fn algorithm(&self) -> &'static str {
        match self {
            SigningKey::Es256(_) => "ES256",
            SigningKey::Rs256(_) => "RS256",
        }
    }

    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        let rng = SystemRandom::new();
        match self {
            SigningKey::Es256(key) => key
                .sign(&rng, message)
                .map(|signature| signature.as_ref().to_vec())
                .map_err(|_| "the JWT could not be signed".to_owned()),
            SigningKey::Rs256(key) => {
                let mut signature = vec![0; key.public().modulus_len()];
                key.sign(&signature::RSA_PKCS1_SHA256, &rng, message, &mut signature)
                    .map_err(|_| "the JWT could not be signed".to_owned())?;
                Ok(signature)
            }
        }
    }

    /// A client assertion of `client_id` for the authorization server `audience`, issued at
    /// `now_secs` (seconds since the Unix epoch).
    pub(crate) fn assertion(
        &self,
        client_id: &str,
        audience: &str,
        now_secs: u64,
    ) -> Result<String, String> {
        let mut id = [0u8; 16];
        SystemRandom::new()
            .fill(&mut id)
            .map_err(|_| "no random bytes for the JWT's id".to_owned())?;
        let header = serde_json::json!({ "alg": self.algorithm(), "typ": "JWT" });
        let claims = serde_json::json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now_secs,
            "exp": now_secs + LIFETIME_SECS,
            "jti": URL_SAFE_NO_PAD.encode(id),
        });
        let signed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self.sign(signed.as_bytes())?;
        Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature)))
    }
}

/// What a client assertion's type is called at the token endpoint.
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// One client-credentials grant of `client_id` proving itself with the key of `pem`, asking
/// for `scopes`, at `now_secs`: discovery, the signed assertion, the token; the client whose
/// requests carry it. Why not, without the key or the assertion.
pub(crate) async fn grant(
    url: &str,
    client_id: &str,
    pem: &str,
    scopes: &[String],
    now_secs: u64,
) -> Result<super::regrant::Inner, String> {
    use rmcp::transport::auth::{AuthClient, OAuthState, OAuthTokenResponse};

    let key = SigningKey::from_pem(pem)?;
    let http = super::code_grant::oauth_http_client()?;
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| format!("OAuth could not start: {e}"))?;
    let OAuthState::Unauthorized(manager) = &state else {
        return Err("OAuth could not start: its state is not the first".to_owned());
    };
    let metadata = manager
        .resolve_metadata()
        .await
        .map_err(|e| format!("the authorization server could not be discovered: {e}"))?
        .metadata;
    let offered = metadata
        .additional_fields
        .get("token_endpoint_auth_signing_alg_values_supported")
        .and_then(serde_json::Value::as_array);
    if let Some(offered) = offered
        && !offered.iter().any(|alg| alg == key.algorithm())
    {
        return Err(format!(
            "the authorization server takes assertions signed with {offered:?}, and the key signs {}",
            key.algorithm()
        ));
    }
    let audience = metadata
        .issuer
        .clone()
        .unwrap_or_else(|| metadata.token_endpoint.clone());
    let assertion = key.assertion(client_id, &audience, now_secs)?;
    let mut form = vec![
        ("grant_type", "client_credentials".to_owned()),
        ("client_assertion_type", JWT_BEARER.to_owned()),
        ("client_assertion", assertion),
        // MCP's authorization names the server the token is for: its URL.
        ("resource", url.to_owned()),
    ];
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    // No redirects: the assertion goes to the token endpoint the metadata names, nowhere else.
    let (tls, _) = crate::base::http::tls_config()?;
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("could not build the HTTP client: {e}"))?;
    let answer = client
        .post(&metadata.token_endpoint)
        .form(&form)
        .send()
        .await
        .map_err(|e| format!("the token endpoint could not be reached: {e}"))?;
    let status = answer.status();
    let body = answer
        .text()
        .await
        .map_err(|e| format!("the token endpoint's answer could not be read: {e}"))?;
    if !status.is_success() {
        let said: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let field = |name: &str| said[name].as_str().unwrap_or_default().to_owned();
        return Err(format!(
            "the token endpoint refused the assertion ({status}): {} {}",
            field("error"),
            field("error_description")
        )
        .trim_end()
        .to_owned());
    }
    let token: OAuthTokenResponse = serde_json::from_str(&body)
        .map_err(|e| format!("the token endpoint's answer is not a token: {e}"))?;
    state
        .set_credentials(client_id, token)
        .await
        .map_err(|e| format!("the token could not be used: {e}"))?;
    let manager = state
        .into_authorization_manager()
        .ok_or_else(|| "the grant gave no token".to_owned())?;
    Ok(AuthClient::new(
        crate::mcp::transport::CuttingClient(http),
        manager,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A P-256 key made for this test (PKCS#8 with its public key, as OpenSSL and Node write).
    fn p256_pem() -> String {
        let rng = SystemRandom::new();
        let document =
            EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .unwrap();
        let body = base64::engine::general_purpose::STANDARD.encode(document.as_ref());
        format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n")
    }

    #[test]
    fn an_es256_assertion_verifies_with_the_key_and_names_the_client() {
        let pem = p256_pem();
        let key = SigningKey::from_pem(&pem).unwrap();
        assert_eq!(key.algorithm(), "ES256");
        let jwt = key
            .assertion("desk", "https://auth.example", 1_000)
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "desk");
        assert_eq!(claims["sub"], "desk");
        assert_eq!(claims["aud"], "https://auth.example");
        assert_eq!(claims["exp"], 1_300);
        let SigningKey::Es256(pair) = &key else {
            unreachable!()
        };
        use ring::signature::KeyPair;
        let public = signature::UnparsedPublicKey::new(
            &signature::ECDSA_P256_SHA256_FIXED,
            pair.public_key().as_ref(),
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        public
            .verify(
                signed.as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the signature verifies");
    }

    #[test]
    fn a_key_that_is_not_pkcs8_pem_is_refused_without_being_shown() {
        let error = SigningKey::from_pem("not-a-key-marker").err().unwrap();
        assert!(
            error.starts_with("the private key is not a PKCS#8 PEM"),
            "{error}"
        );
        assert!(!error.contains("marker"), "{error}");
    }
}
